import Glibc
import StepwiseIO

// stepwised: turn-by-turn navigation daemon. Everything happens in StepwiseIO.
exit(await Stepwised.main(arguments: Array(CommandLine.arguments.dropFirst())))
