/* Stand-in for libcurl's header (written for cudafuse's benchmark): ccminer's miner.h
   declares its pool connection with these names; the kernels never use them. */
#pragma once
typedef void CURL;
typedef int curl_socket_t;
#define CURL_ERROR_SIZE 256
