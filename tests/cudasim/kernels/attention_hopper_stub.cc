/* attention_hopper_launch's stub (components/attention/attention_hopper_stub.c)
 * for the simulated programs of the other attention kernels: the Hopper
 * kernel runs under cudasim in test_attention_hopper_sim and in the
 * transformer block's plugin test (libtransformer_block_sim). */
#include "attention/attention_hopper_stub.c"
