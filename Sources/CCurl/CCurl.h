// libcurl's declarations (Debian: libcurl4-openssl-dev). Only the CurlShim C target includes this:
// Swift cannot call curl_easy_setopt and curl_easy_getinfo, which are variadic (see
// Sources/CurlShim, which opens the library when a router is first used instead of linking it).
#include <curl/curl.h>
