import Glibc

// stepwised: the turn-by-turn navigation daemon; its command line is DaemonCommand.swift.
exit(await Stepwised.main(arguments: Array(CommandLine.arguments.dropFirst())))
