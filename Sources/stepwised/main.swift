import Glibc
import POSIX
import Uplink

// stepwised: the turn-by-turn navigation daemon; its command line is DaemonCommand.swift. The
// fleet uplink (Uplink) is attached here, so that Daemon need not link libmosquitto.
HeapRelease.configureForLongRunning()
exit(
  await Stepwised.main(
    arguments: Array(CommandLine.arguments.dropFirst()), attachments: [MQTTUplink.options]))
