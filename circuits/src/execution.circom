pragma circom 2.1.9;

include "action.circom";

// "This execution honoured the workflow it was submitted as", with every amount private.
//
// Public signals (in this order): workflowCommitment, executionCommitment.
//   workflowCommitment  = Poseidon(salt, workflowLeaf[0..SLOTS-1])
//   executionCommitment = Poseidon(workflowCommitment, executionId[0], executionId[1], salt,
//                                  executionLeaf[0..SLOTS-1])
// `salt` is a private random field element that keeps the commitments hiding (amounts are
// guessable); the relayer gives it to the client with the final report so the client and an
// auditor can recompute both commitments. The recomputation in TypeScript lives in
// relayer/proofs/commitments.ts and uses the same Poseidon (circomlibjs).
template Execution(SLOTS, RECIPIENTS, AMOUNT_BITS) {
    signal input salt;
    signal input executionId[2];
    signal input actionType[SLOTS];
    signal input amountIn[SLOTS];
    signal input amountOut[SLOTS];
    signal input quoted[SLOTS];
    signal input slippageBps[SLOTS];
    signal input feeCap[SLOTS];
    signal input recipients[SLOTS][RECIPIENTS];
    signal input paramsDigest[SLOTS][2];
    signal input txHashes[SLOTS][2][2];

    signal output workflowCommitment;
    signal output executionCommitment;

    component slots[SLOTS];
    component workflowHash = Poseidon(1 + SLOTS);
    component executionHash = Poseidon(4 + SLOTS);
    workflowHash.inputs[0] <== salt;

    for (var i = 0; i < SLOTS; i++) {
        slots[i] = ActionSlot(RECIPIENTS, AMOUNT_BITS);
        slots[i].actionType <== actionType[i];
        slots[i].amountIn <== amountIn[i];
        slots[i].amountOut <== amountOut[i];
        slots[i].quoted <== quoted[i];
        slots[i].slippageBps <== slippageBps[i];
        slots[i].feeCap <== feeCap[i];
        slots[i].recipients <== recipients[i];
        slots[i].paramsDigest <== paramsDigest[i];
        slots[i].txHashes <== txHashes[i];
        workflowHash.inputs[1 + i] <== slots[i].workflowLeaf;
        executionHash.inputs[4 + i] <== slots[i].executionLeaf;
    }

    // unused: actions fill the first slots; at least one action, then empty slots only.
    slots[0].isEmpty === 0;
    for (var i = 0; i + 1 < SLOTS; i++) {
        slots[i].isEmpty * (1 - slots[i + 1].isEmpty) === 0;
    }

    workflowCommitment <== workflowHash.out;
    executionHash.inputs[0] <== workflowCommitment;
    executionHash.inputs[1] <== executionId[0];
    executionHash.inputs[2] <== executionId[1];
    executionHash.inputs[3] <== salt;
    executionCommitment <== executionHash.out;
}

// 8 action slots, up to 4 recipients per multisend, amounts up to 2^96 - 1 base units
// (79 billion whole tokens at 18 decimals). Sized to fit a 2^14 powers of tau.
component main = Execution(8, 4, 96);
