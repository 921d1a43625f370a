// libmosquitto (Debian libmosquitto-dev, 2.0.x): the MQTT client and the MQTT 5 property ids,
// declarations only: the library is opened at run time (Sources/MosquittoShim).
#include <mosquitto.h>
#include <mqtt_protocol.h>
