pragma circom 2.1.9;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";

// Action type codes, shared with relayer/proofs/claim.ts (ACTION_TYPE_CODES).
//   0 = empty slot, 1 = swap, 2 = convert, 3 = bridge, 4 = multisend

// Constrains `in` to [0, 2^n): every value that is compared or summed goes through this,
// because the field wraps around and a "negative" amount would otherwise pass.
template RangeCheck(n) {
    signal input in;
    component bits = Num2Bits(n);
    bits.in <== in;
}

// One action slot of an execution.
//
// Workflow side (fixed at submission, from the action as submitted; relayer/proofs/claim.ts
// `workflowSlots`): action type, slippage in basis points, the part index of a multisend wider
// than one slot, and the sha-256 digest of the action's canonical JSON (every field: assets,
// chains, protocol, amounts, percentages, recipient addresses).
// Execution side (read from the transaction receipts): amount in, amount out, the quote, the
// bridge fee cap, the recipient amounts and the transaction hashes (two 128-bit limbs each).
//
// Constraint families (named in relayer/proofs/errors.ts for off-circuit diagnostics):
//   type       actionType is one of 0..4; only a multisend has parts
//   unused     an empty slot is all zeros; fields a type does not use are zero
//   range      every amount fits AMOUNT_BITS bits; slippage <= MAX_SLIPPAGE_BPS (13 bits)
//   quote      swap/convert: quoted > 0
//   slippage   swap/convert: amountOut >= floor(quoted * (10000 - slippageBps) / 10000)
//   bridge     bridge: amountOut (released on the destination) + feeCap >= amountIn
//   multisend  multisend: sum(recipients) == amountIn
//   tx         a used slot's first transaction hash is non-zero (a bridge's second too); the
//              later parts of a wide multisend carry none (the first part holds them)
template ActionSlot(RECIPIENTS, AMOUNT_BITS, MAX_SLIPPAGE_BPS) {
    // The fewest bits that hold MAX_SLIPPAGE_BPS (5000 needs 13).
    var SLIPPAGE_BITS = 1;
    while ((1 << SLIPPAGE_BITS) <= MAX_SLIPPAGE_BPS) {
        SLIPPAGE_BITS++;
    }
    signal input actionType;
    signal input slippageBps;
    signal input part;
    signal input actionDigest[2];

    signal input amountIn;
    signal input amountOut;
    signal input quoted;
    signal input feeCap;
    signal input recipients[RECIPIENTS];
    signal input txHashes[2][2];

    signal output isEmpty;
    signal output workflowLeaf;
    signal output executionLeaf;
    // Each transaction hash as one field element (hi * 2^128 + lo, reduced) and whether it is
    // zero: equal hashes give equal values, so different values prove different hashes.
    signal output txValue[2];
    signal output txIsZero[2];

    // --- type: exactly one of the five codes
    component isType[5];
    var typeSum = 0;
    for (var t = 0; t < 5; t++) {
        isType[t] = IsEqual();
        isType[t].in[0] <== actionType;
        isType[t].in[1] <== t;
        typeSum += isType[t].out;
    }
    typeSum === 1;
    isEmpty <== isType[0].out;
    signal isSwapLike <== isType[1].out + isType[2].out;
    signal isBridge <== isType[3].out;
    signal isMultisend <== isType[4].out;

    component partRange = RangeCheck(3);
    partRange.in <== part;
    (1 - isMultisend) * part === 0;
    component isFirstPart = IsZero();
    isFirstPart.in <== part;

    // --- unused: zero what the type does not use (keeps each commitment canonical)
    isEmpty * amountIn === 0;
    (1 - isSwapLike - isBridge) * amountOut === 0;
    (1 - isSwapLike) * quoted === 0;
    (1 - isSwapLike) * slippageBps === 0;
    (1 - isBridge) * feeCap === 0;
    for (var r = 0; r < RECIPIENTS; r++) {
        (1 - isMultisend) * recipients[r] === 0;
    }
    for (var k = 0; k < 2; k++) {
        isEmpty * actionDigest[k] === 0;
        isEmpty * txHashes[k][0] === 0;
        isEmpty * txHashes[k][1] === 0;
    }

    // --- range. Each amount column holds at most one non-zero field for any type (the zeroing
    // above): amountIn | amountOut, recipients[0] | quoted, feeCap, recipients[1] | recipients[2..].
    // Range-checking a column's sum checks the one field the type uses, at one Num2Bits per column
    // instead of one per field.
    assert(RECIPIENTS >= 2);
    var COLUMNS = RECIPIENTS + 1;
    signal column[COLUMNS];
    column[0] <== amountIn;
    column[1] <== amountOut + recipients[0];
    column[2] <== quoted + feeCap + recipients[1];
    for (var r = 2; r < RECIPIENTS; r++) {
        column[r + 1] <== recipients[r];
    }
    component amountRange[COLUMNS];
    for (var c = 0; c < COLUMNS; c++) {
        amountRange[c] = RangeCheck(AMOUNT_BITS);
        amountRange[c].in <== column[c];
    }
    component slippageRange = RangeCheck(SLIPPAGE_BITS);
    slippageRange.in <== slippageBps;
    component slippageMax = LessEqThan(SLIPPAGE_BITS);
    slippageMax.in[0] <== slippageBps;
    slippageMax.in[1] <== MAX_SLIPPAGE_BPS;
    slippageMax.out === 1;

    // --- quote: a swap's minimum is meaningless against a zero quote
    component quoteIsZero = IsZero();
    quoteIsZero.in <== quoted;
    isSwapLike * quoteIsZero.out === 0;

    // --- slippage: amountOut >= floor(quoted * (10000 - bps) / 10000), which for integers is
    // amountOut * 10000 + 9999 >= quoted * (10000 - bps): one comparison of AMOUNT_BITS + 14 bits
    // (both sides < 2^96 * 10^4 < 2^110), no division witness. Every other type has
    // quoted = bps = 0, so the right side is 0 and the check holds trivially.
    component slippageHonoured = GreaterEqThan(AMOUNT_BITS + 14);
    slippageHonoured.in[0] <== amountOut * 10000 + 9999;
    slippageHonoured.in[1] <== quoted * (10000 - slippageBps);
    slippageHonoured.out === 1;

    // --- bridge: received + feeCap >= amountIn (sums of two AMOUNT_BITS values need one more bit)
    component bridgeHonoured = GreaterEqThan(AMOUNT_BITS + 1);
    bridgeHonoured.in[0] <== amountOut + feeCap;
    bridgeHonoured.in[1] <== amountIn;
    isBridge * (1 - bridgeHonoured.out) === 0;

    // --- multisend: the recipient amounts sum exactly to amountIn
    var recipientSum = 0;
    for (var r = 0; r < RECIPIENTS; r++) {
        recipientSum += recipients[r];
    }
    isMultisend * (recipientSum - amountIn) === 0;

    // --- tx: the hashes the slot commits to exist (non-zero) where the slot must have them
    component txZero[2];
    for (var k = 0; k < 2; k++) {
        txValue[k] <== txHashes[k][0] * (2 ** 128) + txHashes[k][1];
        txZero[k] = IsZero();
        txZero[k].in <== txValue[k];
        txIsZero[k] <== txZero[k].out;
        (1 - isFirstPart.out) * txValue[k] === 0;
    }
    signal needsTx <== (1 - isEmpty) * isFirstPart.out;
    needsTx * txZero[0].out === 0;
    isBridge * txZero[1].out === 0;

    // --- leaves. Inputs are packed losslessly (actionType < 2^3, slippageBps < 2^14, part < 2^3,
    // amounts < 2^AMOUNT_BITS with 2 * AMOUNT_BITS < 253): packing is linear and costs no
    // constraints, and fewer Poseidon inputs do.
    var SHIFT = 2 ** AMOUNT_BITS;
    component workflowHash = Poseidon(3);
    workflowHash.inputs[0] <== actionType + slippageBps * 8 + part * (2 ** 17);
    workflowHash.inputs[1] <== actionDigest[0];
    workflowHash.inputs[2] <== actionDigest[1];
    workflowLeaf <== workflowHash.out;

    var PACKED_RECIPIENTS = (RECIPIENTS + 1) \ 2;
    component executionHash = Poseidon(6 + PACKED_RECIPIENTS);
    executionHash.inputs[0] <== amountOut + quoted * SHIFT;
    executionHash.inputs[1] <== amountIn + feeCap * SHIFT;
    for (var r = 0; r < PACKED_RECIPIENTS; r++) {
        if (2 * r + 1 < RECIPIENTS) {
            executionHash.inputs[2 + r] <== recipients[2 * r] + recipients[2 * r + 1] * SHIFT;
        } else {
            executionHash.inputs[2 + r] <== recipients[2 * r];
        }
    }
    executionHash.inputs[2 + PACKED_RECIPIENTS] <== txHashes[0][0];
    executionHash.inputs[3 + PACKED_RECIPIENTS] <== txHashes[0][1];
    executionHash.inputs[4 + PACKED_RECIPIENTS] <== txHashes[1][0];
    executionHash.inputs[5 + PACKED_RECIPIENTS] <== txHashes[1][1];
    executionLeaf <== executionHash.out;
}
