import Glibc

// stepwise: the user's tool; each command family is a file of its own beside this one.
exit(StepwiseTool.main(arguments: Array(CommandLine.arguments.dropFirst())))
