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
//   workflowCommitment  = Poseidon(salt, workflowDigestHi, workflowDigestLo, workflowLeaf[0..SLOTS-1])
//   executionCommitment = Poseidon(workflowCommitment, executionId, salt, executionLeaf[0..SLOTS-1])
//   executionId         = keccak256(bytes32 execution id) >> 4 (ExecutionAttestor computes it
//                         from the id it records the proof under, so a proof holds for one id)
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

    component slots[SLOTS];
    component workflowHash = Poseidon(3 + SLOTS);
    component executionHash = Poseidon(3 + SLOTS);
    workflowHash.inputs[0] <== salt;
    workflowHash.inputs[1] <== workflowDigest[0];
    workflowHash.inputs[2] <== workflowDigest[1];

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
        workflowHash.inputs[3 + i] <== slots[i].workflowLeaf;
        executionHash.inputs[3 + i] <== slots[i].executionLeaf;
    }

    // unused: actions fill the first slots; at least one action, then empty slots only.
    slots[0].isEmpty === 0;
    for (var i = 0; i + 1 < SLOTS; i++) {
        slots[i].isEmpty * (1 - slots[i + 1].isEmpty) === 0;
    }

    // tx: every non-zero transaction hash is committed once (no transaction counted twice).
    var HASHES = 2 * SLOTS;
    signal value[HASHES];
    signal isZero[HASHES];
    for (var i = 0; i < SLOTS; i++) {
        for (var k = 0; k < 2; k++) {
            value[2 * i + k] <== slots[i].txValue[k];
            isZero[2 * i + k] <== slots[i].txIsZero[k];
        }
    }
    component same[HASHES * (HASHES - 1) / 2];
    var pair = 0;
    for (var a = 0; a < HASHES; a++) {
        for (var b = a + 1; b < HASHES; b++) {
            same[pair] = IsEqual();
            same[pair].in[0] <== value[a];
            same[pair].in[1] <== value[b];
            same[pair].out * (1 - isZero[a]) === 0;
            pair++;
        }
    }

    workflowCommitment <== workflowHash.out;
    executionHash.inputs[0] <== workflowCommitment;
    executionHash.inputs[1] <== executionId;
    executionHash.inputs[2] <== salt;
    executionCommitment <== executionHash.out;
}
