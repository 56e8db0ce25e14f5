import { deploymentSchema } from "../../../relayer/deployments/index.ts";
import { buildCatalogue, type ChainDescription } from "../../../relayer/workflows/catalogue.ts";

/**
 * Named fixtures: deployment records shaped like the devnet's (three chains, USDC with 6
 * decimals, DAI and WETH with 18, Uniswap- and Sushiswap-style exchanges, the lock-mint bridge),
 * and the spec's examples in both forms.
 */
const token = (n: number) => ({ address: `0x${n.toString(16).padStart(40, "0")}`, decimals: 18 });

function devnetLikeDeployment(name: string, chainId: number) {
  return deploymentSchema.parse({
    chainId,
    network: name,
    deploymentBlock: 1,
    contracts: {},
    tokens: {
      USDC: { ...token(chainId * 10 + 1), decimals: 6 },
      DAI: token(chainId * 10 + 2),
      WETH: token(chainId * 10 + 3),
      ...(name === "arbitrum" ? { ARB: token(chainId * 10 + 8) } : {}),
    },
    exchanges: {
      uniswap: {
        kind: "uniswap-v2",
        factory: token(chainId * 10 + 4).address,
        router: token(chainId * 10 + 5).address,
      },
      sushiswap: {
        kind: "uniswap-v2",
        factory: token(chainId * 10 + 6).address,
        router: token(chainId * 10 + 7).address,
      },
    },
    extra: { bridgeProtocols: ["lockmint"] },
  });
}

export const DEVNET_LIKE_CHAINS: ChainDescription[] = [
  { name: "ethereum", chainId: 31337, deployment: devnetLikeDeployment("ethereum", 31337) },
  { name: "arbitrum", chainId: 31338, deployment: devnetLikeDeployment("arbitrum", 31338) },
  { name: "polygon", chainId: 31339, deployment: devnetLikeDeployment("polygon", 31339) },
];

export const devnetLikeCatalogue = () => buildCatalogue(DEVNET_LIKE_CHAINS);

export const RECIPIENT_A = "0x52908400098527886E0F7030069857D2E4169EE7";
export const RECIPIENT_B = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";

/** The spec's JSON form: convert (priority cost), swap (slippage), bridge, multisend with a percentage. */
export const SPEC_JSON_WORKFLOW = {
  name: "weekly-treasury-rebalance",
  schedule: "0 9 * * 1",
  timezone: "America/New_York",
  actions: [
    {
      type: "convert",
      from: "ETH",
      to: "USDC",
      amount: "1.5",
      route_optimizer: { priority: "cost" },
    },
    { type: "swap", from: "USDC", to: "DAI", amount: "1000", slippage: 0.5, dex: "uniswap" },
    { type: "bridge", destination: "polygon", protocol: "lockmint" },
    {
      type: "multisend",
      recipients: [
        { address: RECIPIENT_A, amount: "250" },
        { address: RECIPIENT_B, amount: "50%" },
      ],
    },
  ],
  compliance: { jurisdictions: ["US"], tax_forms: ["1099-DA"] },
};

/** The same workflow in the YAML form (spec "Workflow definition"). */
export const SPEC_YAML_WORKFLOW = `name: weekly-treasury-rebalance
trigger:
  frequency: every Monday at 09:00 EST
actions:
  - action: convert
    params:
      from: ETH
      to: USDC
      amount: 1.5
      priority: cost
  - action: swap
    params:
      from: USDC
      to: DAI
      amount: 1000
      slippage: 0.5
      dex: uniswap
  - action: bridge
    params:
      destination: polygon
      protocol: lockmint
  - action: multisend
    params:
      recipients:
        - ${RECIPIENT_A}: 250
        - ${RECIPIENT_B}: 50%
compliance:
  jurisdictions: [US]
  tax_forms: [1099-DA]
`;
