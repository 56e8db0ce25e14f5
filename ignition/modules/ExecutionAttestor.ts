import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

/**
 * The generated Groth16 verifiers and the ExecutionAttestor.
 *
 * Parameters (all optional; defaults in brackets):
 * - `admin` [deployer]: default admin of the attestor (grants ATTESTER_ROLE).
 * - `relayer` [deployer]: granted ATTESTER_ROLE at deployment: the relayer's operator account
 *   (same parameter name as the Core module).
 * - `adminTransferDelay` [0]: seconds before a new default admin can accept the handover.
 *
 * Contracts (futures): `ExecutionGroth16Verifier`, `ArtifactsGroth16Verifier`, `ExecutionAttestor`.
 */
export default buildModule("ExecutionAttestor", (m) => {
  const deployer = m.getAccount(0);
  const admin = m.getParameter("admin", deployer);
  const relayer = m.getParameter("relayer", deployer);
  const adminTransferDelay = m.getParameter("adminTransferDelay", 0);

  const executionVerifier = m.contract("ExecutionGroth16Verifier");
  const artifactsVerifier = m.contract("ArtifactsGroth16Verifier");
  const executionAttestor = m.contract("ExecutionAttestor", [
    executionVerifier,
    admin,
    adminTransferDelay,
    relayer,
  ]);
  return { executionVerifier, artifactsVerifier, executionAttestor };
});
