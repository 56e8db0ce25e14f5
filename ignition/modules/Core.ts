import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

/**
 * Veriflow's core contracts: ProofRegistry, CircuitBreakerGateway and RevShareReceipt.
 *
 * Parameters (module id `Core`; every one optional, defaults below):
 * - `admin` (address): default admin of the three contracts. Default: the deploying account.
 * - `relayer` (address): granted LOGGER_ROLE + SIGNER_ROLE (ProofRegistry), REPORTER_ROLE
 *   (CircuitBreakerGateway) and ISSUER_ROLE (RevShareReceipt). Default: the deploying account.
 * - `adminDelay` (seconds): delay of the two-step default-admin handover. Default 86 400 (1 day).
 * - `failureThreshold`: failures must exceed this to open a circuit. Default 10 (the spec's value).
 * - `cooldown` (seconds): how long an opened circuit stays open. Default 3 600 (1 hour).
 * - `failureWindow` (seconds): how long a failure count lasts from its first failure. Default 3 600.
 * - `claimShareBps`: ERC-7641 claimable share `p` of each snapshot's revenue. Default 5 000 (50 %).
 * - `snapshotInterval` (seconds): minimum time between two receipt snapshots. Default 86 400 (1 day).
 * - `receiptName` / `receiptSymbol`: ERC-20 metadata. Default "Veriflow Payment Receipt" / "VFR".
 *
 * Roles are granted in the constructors, so a deployment is three transactions and works whether
 * or not the deployer is the admin.
 */
export const CORE_DEFAULTS = {
  adminDelay: 86_400n,
  failureThreshold: 10n,
  cooldown: 3_600n,
  failureWindow: 3_600n,
  claimShareBps: 5_000n,
  snapshotInterval: 86_400n,
  receiptName: "Veriflow Payment Receipt",
  receiptSymbol: "VFR",
} as const;

export default buildModule("Core", (m) => {
  const deployer = m.getAccount(0);
  const admin = m.getParameter("admin", deployer);
  const relayer = m.getParameter("relayer", deployer);
  const adminDelay = m.getParameter("adminDelay", CORE_DEFAULTS.adminDelay);

  const proofRegistry = m.contract("ProofRegistry", [adminDelay, admin, relayer, relayer]);

  const circuitBreakerGateway = m.contract("CircuitBreakerGateway", [
    adminDelay,
    admin,
    relayer,
    m.getParameter("failureThreshold", CORE_DEFAULTS.failureThreshold),
    m.getParameter("cooldown", CORE_DEFAULTS.cooldown),
    m.getParameter("failureWindow", CORE_DEFAULTS.failureWindow),
  ]);

  const revShareReceipt = m.contract("RevShareReceipt", [
    m.getParameter("receiptName", CORE_DEFAULTS.receiptName),
    m.getParameter("receiptSymbol", CORE_DEFAULTS.receiptSymbol),
    adminDelay,
    admin,
    relayer,
    m.getParameter("claimShareBps", CORE_DEFAULTS.claimShareBps),
    m.getParameter("snapshotInterval", CORE_DEFAULTS.snapshotInterval),
  ]);

  return { proofRegistry, circuitBreakerGateway, revShareReceipt };
});
