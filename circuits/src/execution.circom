pragma circom 2.1.9;

include "action.circom";

// "This execution honoured the workflow it was submitted as", with every amount private.
// This file holds the template; the circuits are its variants, one per action-slot count
// (execution2.circom, execution4.circom, execution8.circom), each with its own key and verifier.
// An execution is proved with the smallest variant its workflow fits (relayer/proofs/claim.ts
// `variantOf`); the workflow commitment depends on the slot count, so the submission receipt
// fixes the variant too.
//
// Public signals (in this order): workflowCommitment, executionCommitment, executionId.
//   workflowCommitment  = WideHash(salt, workflowDigestHi, workflowDigestLo, headers,
//                                  actionDigestHi[i], actionDigestLo[i] for each slot i)
//   executionCommitment = WideHash(workflowCommitment, executionId, salt,
//                                  column[i][0] + 2^96 * column[i][1], column[i][2] + 2^96 * column[i][3],
//                                  tx0Hi[i], tx0Lo[i], tx1Hi[i], tx1Lo[i] for each slot i)
//   executionId         = keccak256(bytes32 execution id) >> 4 (ExecutionAttestor computes it
//                         from the id it records the proof under, so a proof holds for one id)
// headers = sum of header[i] * 2^(20 i) (each header below 2^20, at most 8 slots: below 2^160).
// Every packed element is a lossless base-2^k number whose digits are range-checked (header,
// column), so it determines them; values the circuit does not range-check (the digests and
// transaction hash limbs) are inputs of their own. The execution commitment contains the
// workflow one and so each slot's type, which with the columns determines every amount (the
// table in action.circom).
// The workflow commitment is computed at submission (the signed submission receipt carries it
// and the salt); `salt` is a random field element drawn then, which keeps the commitments hiding.
// The recomputation in TypeScript lives in relayer/proofs/commitments.ts and uses the same
// Poseidon (circomlibjs).
template Execution(SLOTS, RECIPIENTS, AMOUNT_BITS, MAX_SLIPPAGE_BPS) {
    signal input salt;
    signal input workflowDigest[2];
    signal input executionId;
    signal input actionType[SLOTS];
    signal input slippageBps[SLOTS];
    signal input part[SLOTS];
    signal input actionDigest[SLOTS][2];
    signal input amountIn[SLOTS];
    signal input amountOut[SLOTS];
    signal input quoted[SLOTS];
    signal input feeCap[SLOTS];
    signal input recipients[SLOTS][RECIPIENTS];
    signal input txHashes[SLOTS][2][2];

    signal output workflowCommitment;
    signal output executionCommitment;

    // 20 header bits per slot in one element: 8 slots take 160 bits.
    assert(SLOTS <= 12);
    var SHIFT = 2 ** AMOUNT_BITS;
    var WORKFLOW_INPUTS = 4 + 2 * SLOTS;
    var EXECUTION_INPUTS = 3 + 6 * SLOTS;
    component slots[SLOTS];
    component workflowHash = WideHash(WORKFLOW_INPUTS);
    component executionHash = WideHash(EXECUTION_INPUTS);
    workflowHash.inputs[0] <== salt;
    workflowHash.inputs[1] <== workflowDigest[0];
    workflowHash.inputs[2] <== workflowDigest[1];

    var headers = 0;
    for (var i = 0; i < SLOTS; i++) {
        slots[i] = ActionSlot(RECIPIENTS, AMOUNT_BITS, MAX_SLIPPAGE_BPS);
        slots[i].actionType <== actionType[i];
        slots[i].slippageBps <== slippageBps[i];
        slots[i].part <== part[i];
        slots[i].actionDigest <== actionDigest[i];
        slots[i].amountIn <== amountIn[i];
        slots[i].amountOut <== amountOut[i];
        slots[i].quoted <== quoted[i];
        slots[i].feeCap <== feeCap[i];
        slots[i].recipients <== recipients[i];
        slots[i].txHashes <== txHashes[i];
        headers += slots[i].header * (2 ** (20 * i));
        workflowHash.inputs[4 + 2 * i] <== actionDigest[i][0];
        workflowHash.inputs[5 + 2 * i] <== actionDigest[i][1];
        executionHash.inputs[3 + 6 * i] <== slots[i].column[0] + slots[i].column[1] * SHIFT;
        executionHash.inputs[4 + 6 * i] <== slots[i].column[2] + slots[i].column[3] * SHIFT;
        executionHash.inputs[5 + 6 * i] <== txHashes[i][0][0];
        executionHash.inputs[6 + 6 * i] <== txHashes[i][0][1];
        executionHash.inputs[7 + 6 * i] <== txHashes[i][1][0];
        executionHash.inputs[8 + 6 * i] <== txHashes[i][1][1];
    }
    workflowHash.inputs[3] <== headers;

    // unused: actions fill the first slots; at least one action, then empty slots only.
    slots[0].isEmpty === 0;
    for (var i = 0; i + 1 < SLOTS; i++) {
        slots[i].isEmpty * (1 - slots[i + 1].isEmpty) === 0;
    }

    // tx: every non-zero transaction hash is committed once (no transaction counted twice).
    // For each pair, (value[a] - value[b]) * inverse === 1 - isZero[a]: when value[a] is non-zero
    // the difference must have an inverse, so value[b] differs; when it is zero, the inverse is 0.
    // One constraint per pair.
    var HASHES = 2 * SLOTS;
    signal value[HASHES];
    signal isZero[HASHES];
    for (var i = 0; i < SLOTS; i++) {
        for (var k = 0; k < 2; k++) {
            value[2 * i + k] <== slots[i].txValue[k];
            isZero[2 * i + k] <== slots[i].txIsZero[k];
        }
    }
    signal inverse[HASHES * (HASHES - 1) / 2];
    var pair = 0;
    for (var a = 0; a < HASHES; a++) {
        for (var b = a + 1; b < HASHES; b++) {
            inverse[pair] <-- value[a] != 0 && value[a] != value[b] ? 1 / (value[a] - value[b]) : 0;
            (value[a] - value[b]) * inverse[pair] === 1 - isZero[a];
            pair++;
        }
    }

    workflowCommitment <== workflowHash.out;
    executionHash.inputs[0] <== workflowCommitment;
    executionHash.inputs[1] <== executionId;
    executionHash.inputs[2] <== salt;
    executionCommitment <== executionHash.out;
}
