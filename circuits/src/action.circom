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

// Poseidon over any number of inputs: one call while they fit circomlib's widest permutation
// (16 inputs), otherwise that call over the first 16 and then one call per further 15, each
// taking the previous result first. Wide calls cost far less per input than narrow ones (the
// partial rounds are paid once per call). relayer/proofs/commitments.ts `wideHash` is the same rule.
template WideHash(N) {
    var WIDTH = 16;
    signal input inputs[N];
    signal output out;
    if (N <= WIDTH) {
        component hash = Poseidon(N);
        hash.inputs <== inputs;
        out <== hash.out;
    } else {
        var CALLS = 1 + (N - WIDTH + WIDTH - 2) \ (WIDTH - 1);
        component chain[CALLS];
        chain[0] = Poseidon(WIDTH);
        for (var i = 0; i < WIDTH; i++) {
            chain[0].inputs[i] <== inputs[i];
        }
        var next = WIDTH;
        for (var c = 1; c < CALLS; c++) {
            var take = N - next < WIDTH - 1 ? N - next : WIDTH - 1;
            chain[c] = Poseidon(1 + take);
            chain[c].inputs[0] <== chain[c - 1].out;
            for (var i = 0; i < take; i++) {
                chain[c].inputs[1 + i] <== inputs[next + i];
            }
            next += take;
        }
        out <== chain[CALLS - 1].out;
    }
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
//   range      every amount fits AMOUNT_BITS bits (a multisend's amountIn through its recipients,
//              below); slippage <= MAX_SLIPPAGE_BPS (13 bits)
//   quote      swap/convert: quoted > 0
//   slippage   swap/convert: amountOut >= floor(quoted * (10000 - slippageBps) / 10000)
//   bridge     bridge: amountOut (released on the destination) + feeCap >= amountIn
//   multisend  multisend: sum(recipients) == amountIn
//   tx         a used slot's first transaction hash is non-zero (a bridge's second too); the
//              later parts of a wide multisend carry none (the first part holds them)
//
// What the commitments hash (execution.circom): `header` and `actionDigest` on the workflow side,
// `column` and the transaction hash limbs on the execution side.
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
    // type + 8 * slippageBps + 2^17 * part: below 2^20 by the checks on each (type < 8,
    // slippageBps < 2^13, part < 2^3), so it determines all three.
    signal output header;
    // The four range-checked amount columns (see "range").
    signal output column[4];
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

    // --- range. After the zeroing above each column holds at most one non-zero field, and which
    // one the type says:
    //   column   swap / convert   bridge      multisend
    //   0        amountIn         amountIn    recipients[0]
    //   1        amountOut        amountOut   recipients[1]
    //   2        quoted           feeCap      recipients[2]
    //   3        -                -           recipients[3]
    // so one Num2Bits per column checks every field a type uses, and the columns with the type
    // determine every field. A multisend's amountIn is not a column: it equals the sum of its
    // range-checked recipients (multisend), so it is below RECIPIENTS * 2^AMOUNT_BITS (2^98);
    // relayer/proofs/claim.ts refuses one above 2^AMOUNT_BITS - 1 before proving.
    assert(RECIPIENTS == 4);
    signal amountInColumn <== (1 - isMultisend) * amountIn;
    column[0] <== amountInColumn + recipients[0];
    column[1] <== amountOut + recipients[1];
    column[2] <== quoted + feeCap + recipients[2];
    column[3] <== recipients[3];
    component amountRange[4];
    for (var c = 0; c < 4; c++) {
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

    // --- slippage and bridge, one comparison: the two are exclusive by type, so
    //   least = quoted * (10000 - bps) + isBridge * amountIn
    //   most  = amountOut * (1 + 9999 * isSwapLike) + 9999 * isSwapLike + feeCap
    // is, for a swap/convert, amountOut * 10000 + 9999 >= quoted * (10000 - bps) (the integer form
    // of amountOut >= floor(quoted * (10000 - bps) / 10000), no division witness); for a bridge,
    // amountOut + feeCap >= amountIn; for the other types 0 >= 0 (their quoted, amountOut and
    // feeCap are zero). Both sides are below 2^AMOUNT_BITS * 10^4 < 2^(AMOUNT_BITS + 14) (range),
    // so most - least fits AMOUNT_BITS + 14 bits exactly when most >= least: a "negative"
    // difference wraps to above p - 2^(AMOUNT_BITS + 14).
    signal swapOut <== isSwapLike * amountOut;
    signal bridgeIn <== isBridge * amountIn;
    signal least <== quoted * (10000 - slippageBps) + bridgeIn;
    signal most <== amountOut + 9999 * swapOut + 9999 * isSwapLike + feeCap;
    component honoured = RangeCheck(AMOUNT_BITS + 14);
    honoured.in <== most - least;

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

    header <== actionType + slippageBps * 8 + part * (2 ** 17);
}
