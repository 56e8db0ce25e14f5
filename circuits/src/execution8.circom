pragma circom 2.1.9;

include "execution.circom";

// 8 action slots, up to 4 recipients per multisend slot, amounts up to 2^96 - 1 base units
// (79 billion whole tokens at 18 decimals), slippage at most 5000 bps (the API's 50 %).
// Sized to fit a 2^14 powers of tau (the one every variant shares).
component main {public [executionId]} = Execution(8, 4, 96, 5000);
