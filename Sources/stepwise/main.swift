import Glibc
import StepwiseIO

// stepwise: the user's tool. Everything happens in StepwiseIO.
exit(StepwiseTool.main(arguments: Array(CommandLine.arguments.dropFirst())))
