// Another file of the program: the emulator builds scan.cu alone, as nvcc -c does.
#include <stdint.h>
#include <stdio.h>
int opt_debug = 0;
void log_found(int thr_id, uint32_t nonce) { printf("%d: %u\n", thr_id, nonce); }
