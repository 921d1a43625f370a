import Glibc
import StepwiseIO
import Uplink

// stepwised: turn-by-turn navigation daemon. Everything happens in StepwiseIO; the fleet
// uplink (Uplink) is attached here so that StepwiseIO need not link libmosquitto.
exit(
  await Stepwised.main(
    arguments: Array(CommandLine.arguments.dropFirst()), attachments: [MQTTUplink.options]))
