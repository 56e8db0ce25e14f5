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
 * Contracts (futures): one verifier per execution circuit variant (`Execution2Groth16Verifier`,
 * `Execution4Groth16Verifier`, `Execution8Groth16Verifier`), `ArtifactsGroth16Verifier`,
 * `ExecutionAttestor` (given every variant's verifier at construction).
 */
export default buildModule("ExecutionAttestor", (m) => {
  const deployer = m.getAccount(0);
  const admin = m.getParameter("admin", deployer);
  const relayer = m.getParameter("relayer", deployer);
  const adminTransferDelay = m.getParameter("adminTransferDelay", 0);

  const execution2Verifier = m.contract("Execution2Groth16Verifier");
  const execution4Verifier = m.contract("Execution4Groth16Verifier");
  const execution8Verifier = m.contract("Execution8Groth16Verifier");
  const artifactsVerifier = m.contract("ArtifactsGroth16Verifier");
  const executionAttestor = m.contract("ExecutionAttestor", [
    [2, 4, 8],
    [execution2Verifier, execution4Verifier, execution8Verifier],
    admin,
    adminTransferDelay,
    relayer,
  ]);
  return {
    execution2Verifier,
    execution4Verifier,
    execution8Verifier,
    artifactsVerifier,
    executionAttestor,
  };
});
