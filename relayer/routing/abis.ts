import { createRequire } from "node:module";
import { Interface, type InterfaceAbi } from "ethers";

/**
 * ABIs of the Uniswap V2 contracts and of ERC-20, taken from the official build artifacts shipped
 * in `@uniswap/v2-core` / `@uniswap/v2-periphery` (the same bytecode the devnet deploys), so no ABI
 * fragment is written by hand.
 */
const require = createRequire(import.meta.url);

function abiOf(file: string): InterfaceAbi {
  return (require(file) as { abi: InterfaceAbi }).abi;
}

export const PAIR_ABI = abiOf("@uniswap/v2-core/build/IUniswapV2Pair.json");
export const FACTORY_ABI = abiOf("@uniswap/v2-core/build/IUniswapV2Factory.json");
export const ROUTER_ABI = abiOf("@uniswap/v2-periphery/build/IUniswapV2Router02.json");
export const ERC20_ABI = abiOf("@uniswap/v2-core/build/IERC20.json");

/**
 * Parsed once: building an ethers `Interface` from an ABI is costly (every fragment and parameter
 * becomes an object), so routing encodes and decodes with these instead of constructing a
 * `Contract` per read.
 */
export const PAIR_INTERFACE = Interface.from(PAIR_ABI);
export const FACTORY_INTERFACE = Interface.from(FACTORY_ABI);
export const ROUTER_INTERFACE = Interface.from(ROUTER_ABI);
export const ERC20_INTERFACE = Interface.from(ERC20_ABI);
