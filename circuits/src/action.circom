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

// One action slot of an execution. Private inputs describe the action as submitted (type,
// amount in, slippage, fee cap, multisend recipient amounts, a digest of its other parameters)
// and as executed (amount out, quoted amount, transaction hashes). Outputs the slot's leaf in
// each commitment and whether the slot is empty.
//
// Constraint families (named in relayer/proofs/constraints.ts for off-circuit diagnostics):
//   type       actionType is one of 0..4
//   unused     an empty slot is all zeros; fields a type does not use are zero
//   range      every amount fits AMOUNT_BITS bits, slippage fits 14 bits and is <= 10000
//   slippage   swap/convert: amountOut >= floor(quoted * (10000 - slippageBps) / 10000)
//   bridge     bridge: amountOut (received) + feeCap >= amountIn
//   multisend  multisend: sum(recipients) == amountIn
template ActionSlot(RECIPIENTS, AMOUNT_BITS) {
    signal input actionType;
    signal input amountIn;
    signal input amountOut;
    signal input quoted;
    signal input slippageBps;
    signal input feeCap;
    signal input recipients[RECIPIENTS];
    signal input paramsDigest[2];
    signal input txHashes[2][2];

    signal output isEmpty;
    signal output workflowLeaf;
    signal output executionLeaf;

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
        isEmpty * paramsDigest[k] === 0;
        isEmpty * txHashes[k][0] === 0;
        isEmpty * txHashes[k][1] === 0;
    }

    // --- range
    component amountInRange = RangeCheck(AMOUNT_BITS);
    amountInRange.in <== amountIn;
    component amountOutRange = RangeCheck(AMOUNT_BITS);
    amountOutRange.in <== amountOut;
    component quotedRange = RangeCheck(AMOUNT_BITS);
    quotedRange.in <== quoted;
    component feeCapRange = RangeCheck(AMOUNT_BITS);
    feeCapRange.in <== feeCap;
    component recipientRange[RECIPIENTS];
    for (var r = 0; r < RECIPIENTS; r++) {
        recipientRange[r] = RangeCheck(AMOUNT_BITS);
        recipientRange[r].in <== recipients[r];
    }
    component slippageRange = RangeCheck(14);
    slippageRange.in <== slippageBps;
    component slippageMax = LessEqThan(14);
    slippageMax.in[0] <== slippageBps;
    slippageMax.in[1] <== 10000;
    slippageMax.out === 1;

    // --- slippage: minOut = floor(quoted * (10000 - bps) / 10000), proved by
    // quoted * (10000 - bps) = minOut * 10000 + remainder with 0 <= remainder < 10000.
    // Every other type has quoted = bps = 0, so minOut = 0 and the check holds trivially.
    signal scaledQuote <== quoted * (10000 - slippageBps);
    signal minOut <-- scaledQuote \ 10000;
    signal remainder <== scaledQuote - minOut * 10000;
    component minOutRange = RangeCheck(AMOUNT_BITS);
    minOutRange.in <== minOut;
    component remainderRange = RangeCheck(14);
    remainderRange.in <== remainder;
    component remainderMax = LessThan(14);
    remainderMax.in[0] <== remainder;
    remainderMax.in[1] <== 10000;
    remainderMax.out === 1;
    component slippageHonoured = GreaterEqThan(AMOUNT_BITS);
    slippageHonoured.in[0] <== amountOut;
    slippageHonoured.in[1] <== minOut;
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

    // --- leaves. Every input is packed losslessly into as few field elements as possible
    // (actionType < 2^3, slippageBps < 2^14, amounts < 2^AMOUNT_BITS with 2 * AMOUNT_BITS < 253):
    // packing is linear, so it costs no constraints, and fewer Poseidon inputs do.
    var SHIFT = 2 ** AMOUNT_BITS;
    var PACKED_RECIPIENTS = (RECIPIENTS + 1) \ 2;
    component workflowHash = Poseidon(4 + PACKED_RECIPIENTS);
    workflowHash.inputs[0] <== actionType + slippageBps * 8;
    workflowHash.inputs[1] <== amountIn + feeCap * SHIFT;
    workflowHash.inputs[2] <== paramsDigest[0];
    workflowHash.inputs[3] <== paramsDigest[1];
    for (var r = 0; r < PACKED_RECIPIENTS; r++) {
        if (2 * r + 1 < RECIPIENTS) {
            workflowHash.inputs[4 + r] <== recipients[2 * r] + recipients[2 * r + 1] * SHIFT;
        } else {
            workflowHash.inputs[4 + r] <== recipients[2 * r];
        }
    }
    workflowLeaf <== workflowHash.out;

    component executionHash = Poseidon(5);
    executionHash.inputs[0] <== amountOut + quoted * SHIFT;
    executionHash.inputs[1] <== txHashes[0][0];
    executionHash.inputs[2] <== txHashes[0][1];
    executionHash.inputs[3] <== txHashes[1][0];
    executionHash.inputs[4] <== txHashes[1][1];
    executionLeaf <== executionHash.out;
}
