pragma circom 2.1.9;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "circomlib/circuits/poseidon.circom";

// A Poseidon Merkle tree over up to 2^DEPTH artifact digests.
// Each artifact is the sha2-256 digest of its CID, split into two 128-bit big-endian halves
// (digest[i][0] = high half). leaf[i] = Poseidon(digest[i][0], digest[i][1]) for i < count,
// 0 for the unused leaves (whose digests must be zero); node = Poseidon(left, right).
// Public signals (in this order): root, count.
// Inclusion paths for single artifacts are computed off chain (relayer/proofs/artifacts.ts).
template Artifacts(DEPTH) {
    var LEAVES = 1 << DEPTH;
    signal input count;
    signal input digests[LEAVES][2];
    signal output root;

    // 1 <= count <= LEAVES
    component countRange = Num2Bits(DEPTH + 1);
    countRange.in <== count;
    component countMax = LessEqThan(DEPTH + 1);
    countMax.in[0] <== count;
    countMax.in[1] <== LEAVES;
    countMax.out === 1;
    component countZero = IsZero();
    countZero.in <== count;
    countZero.out === 0;

    component used[LEAVES];
    component leafHash[LEAVES];
    signal leaves[LEAVES];
    for (var i = 0; i < LEAVES; i++) {
        used[i] = LessThan(DEPTH + 1);
        used[i].in[0] <== i;
        used[i].in[1] <== count;
        (1 - used[i].out) * digests[i][0] === 0;
        (1 - used[i].out) * digests[i][1] === 0;
        leafHash[i] = Poseidon(2);
        leafHash[i].inputs <== digests[i];
        leaves[i] <== used[i].out * leafHash[i].out;
    }

    component nodes[LEAVES - 1];
    signal level[2 * LEAVES - 1];
    for (var i = 0; i < LEAVES; i++) {
        level[i] <== leaves[i];
    }
    // level[] holds the tree bottom-up: leaves first, then each parent after its children.
    for (var n = 0; n < LEAVES - 1; n++) {
        nodes[n] = Poseidon(2);
        nodes[n].inputs[0] <== level[2 * n];
        nodes[n].inputs[1] <== level[2 * n + 1];
        level[LEAVES + n] <== nodes[n].out;
    }
    root <== level[2 * LEAVES - 2];
}

// 32 artifacts.
component main { public [count] } = Artifacts(5);
