// libcurl (Debian: libcurl4-openssl-dev). Only the CurlShim C target includes this: Swift cannot
// call curl_easy_setopt and curl_easy_getinfo, which are variadic (see Sources/CurlShim).
#include <curl/curl.h>
