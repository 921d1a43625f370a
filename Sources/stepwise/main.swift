import Glibc

// stepwise: the user's tool; each command family is a file of its own beside this one; the
// dispatcher's commands (fleet, send, FleetTool.swift) use FleetClient, which opens
// libmosquitto.
let arguments = Array(CommandLine.arguments.dropFirst())
if let command = arguments.first, FleetTool.handles(command) {
  exit(FleetTool.main(command: command, arguments: Array(arguments.dropFirst())))
}
exit(StepwiseTool.main(arguments: arguments))
