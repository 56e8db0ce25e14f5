pragma circom 2.1.9;

include "execution.circom";

// 4 action slots, up to 4 recipients per multisend slot, amounts up to 2^96 - 1 base units
// (79 billion whole tokens at 18 decimals), slippage at most 5000 bps (the API's 50 %).
// The proving key's domain is the next power of two above its constraints: smaller than the 8-slot's.
component main {public [executionId]} = Execution(4, 4, 96, 5000);
