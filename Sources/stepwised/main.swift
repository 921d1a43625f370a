import Glibc
import POSIX

// stepwised: the turn-by-turn navigation daemon; its command line is DaemonCommand.swift, which
// attaches the fleet uplink (Uplink), so that Daemon need not link libmosquitto.
HeapRelease.configureForLongRunning()
exit(await Stepwised.main(arguments: Array(CommandLine.arguments.dropFirst())))
