import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { getAddress } from "ethers";
import { SaxesParser } from "saxes";

/**
 * Sanctions list files in the formats OFAC publishes, reduced to what the relayer checks: the
 * Ethereum addresses they name, each with a human-readable entry (who it belongs to).
 *
 * Formats, detected from the content:
 * - `text`: one address per line (the form the public extracts of the SDN list use); blank lines
 *   and `#` comments are ignored; any other line is an error naming its line number.
 * - `sdn-xml`: the classic `sdn.xml` (`<sdnEntry>` with `<idList><id><idType>Digital Currency
 *   Address - ETH</idType><idNumber>0x…</idNumber>`).
 * - `sdn-advanced-xml`: `sdn_advanced.xml` (a `<FeatureType>` named "Digital Currency Address -
 *   ETH" in the reference value sets, and `<Feature FeatureTypeID=…>` under each `<DistinctParty>`
 *   holding the address in a `<VersionDetail>`).
 * Both XML forms are read with a streaming parser: the advanced file is over 100 MB.
 */

export const ETH_FEATURE_NAME = "Digital Currency Address - ETH";

export type ListFormat = "text" | "sdn-xml" | "sdn-advanced-xml";

export interface SanctionedAddress {
  /** EIP-55 checksummed. */
  address: string;
  /** Who or what the list names for this address (SDN uid and name, or the file line). */
  entry: string;
}

export interface LoadedListFile {
  /** List id (`ofac-sdn` unless the configuration names another). */
  list: string;
  path: string;
  format: ListFormat;
  /** Lower-case address → entry. */
  entries: Map<string, SanctionedAddress>;
  /** The file's modification time: when the list content last changed. */
  updatedAt: Date;
  loadedAt: Date;
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Reads one list file, detecting its format. Throws with the path and the reason. */
export async function loadListFile(list: string, path: string): Promise<LoadedListFile> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    throw new Error(`sanctions list ${list}: cannot read ${path}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const found = (await looksLikeXml(path)) ? await readSdnXml(path) : await readTextList(path);
  const format = found.format;
  if (format === undefined) {
    throw new Error(
      `sanctions list ${list}: ${path} is XML but neither sdn.xml nor sdn_advanced.xml`,
    );
  }
  // An empty list is a truncated or half-written file far more often than a real list.
  if (found.items.length === 0) {
    throw new Error(`sanctions list ${list}: ${path} names no Ethereum address`);
  }
  const entries = new Map<string, SanctionedAddress>();
  for (const item of found.items) {
    if (!HEX_ADDRESS.test(item.address)) {
      throw new Error(
        `sanctions list ${list}: ${path}: ${item.where}: not an address: ${item.address}`,
      );
    }
    // Checksum case in published lists is not reliable (the SDN list mixes cases); the address
    // bytes are what counts, so entries are normalised rather than rejected.
    const address = getAddress(item.address.toLowerCase());
    const key = address.toLowerCase();
    const previous = entries.get(key);
    entries.set(key, {
      address,
      entry:
        previous && previous.entry !== item.entry ? `${previous.entry}; ${item.entry}` : item.entry,
    });
  }
  return { list, path, format, entries, updatedAt: info.mtime, loadedAt: new Date() };
}

async function looksLikeXml(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(512);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .trimStart();
    return head.startsWith("<");
  } finally {
    await handle.close();
  }
}

interface RawItem {
  address: string;
  entry: string;
  where: string;
}

async function readTextList(path: string): Promise<{ format: ListFormat; items: RawItem[] }> {
  const lines = (await readFile(path, "utf8")).replace(/^\uFEFF/, "").split(/\r?\n/);
  const items: RawItem[] = [];
  lines.forEach((raw, index) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") return;
    items.push({ address: line, entry: `line ${index + 1}`, where: `line ${index + 1}` });
  });
  return { format: "text", items };
}

/** One streaming pass that understands both XML layouts. */
async function readSdnXml(
  path: string,
): Promise<{ format: ListFormat | undefined; items: RawItem[] }> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: string[] = [];
  let text = "";
  let format: ListFormat | undefined;

  // sdn.xml state
  let entryUid = "";
  let entryNames: string[] = [];
  let idType = "";
  let idNumber = "";
  const classic: RawItem[] = [];

  // sdn_advanced.xml state
  const ethFeatureTypeIds = new Set<string>();
  let partyRef = "";
  let partyName = "";
  let featureTypeId: string | undefined;
  let featureTypeDefinitionId: string | undefined;
  const advanced: { featureTypeId: string; item: RawItem }[] = [];

  const local = (name: string): string => name.slice(name.indexOf(":") + 1);
  const parent = (): string | undefined => stack[stack.length - 2];

  parser.on("opentag", (tag) => {
    const name = local(tag.name);
    stack.push(name);
    text = "";
    const attr = (key: string): string | undefined => {
      const value = tag.attributes[key];
      return typeof value === "string" ? value : undefined;
    };
    switch (name) {
      case "sdnList":
        format = "sdn-xml";
        break;
      case "Sanctions":
        format = "sdn-advanced-xml";
        break;
      case "sdnEntry":
        entryUid = "";
        entryNames = [];
        break;
      case "id":
        idType = "";
        idNumber = "";
        break;
      case "FeatureType":
        featureTypeDefinitionId = attr("ID");
        break;
      case "DistinctParty":
        partyRef = attr("FixedRef") ?? "";
        partyName = "";
        break;
      case "Feature":
        featureTypeId = attr("FeatureTypeID");
        break;
    }
  });
  parser.on("text", (chunk) => {
    text += chunk;
  });
  parser.on("closetag", (tag) => {
    const name = local(tag.name);
    const value = text.trim();
    const inside = parent();
    switch (name) {
      case "uid":
        if (inside === "sdnEntry") entryUid = value;
        break;
      case "lastName":
      case "firstName":
        if (inside === "sdnEntry") entryNames.push(value);
        break;
      case "idType":
        idType = value;
        break;
      case "idNumber":
        idNumber = value;
        break;
      case "id":
        if (idType === ETH_FEATURE_NAME && idNumber !== "") {
          const who = entryNames.reverse().join(" ");
          classic.push({
            address: idNumber,
            entry: `SDN uid ${entryUid}: ${who}`,
            where: `sdnEntry uid ${entryUid}`,
          });
        }
        break;
      case "FeatureType":
        if (value === ETH_FEATURE_NAME && featureTypeDefinitionId) {
          ethFeatureTypeIds.add(featureTypeDefinitionId);
        }
        featureTypeDefinitionId = undefined;
        break;
      case "NamePartValue":
        if (partyName === "") partyName = value;
        break;
      case "VersionDetail":
        if (featureTypeId !== undefined && stack.includes("DistinctParty")) {
          advanced.push({
            featureTypeId,
            item: {
              address: value,
              entry: `SDN FixedRef ${partyRef}: ${partyName}`,
              where: `DistinctParty FixedRef ${partyRef}`,
            },
          });
        }
        break;
      case "Feature":
        featureTypeId = undefined;
        break;
    }
    stack.pop();
    text = "";
  });

  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(path, { encoding: "utf8" });
    parser.on("error", (err) => {
      stream.destroy();
      reject(new Error(`${path}: invalid XML: ${err.message}`));
    });
    stream.on("data", (chunk) => {
      try {
        parser.write(chunk);
      } catch (err) {
        stream.destroy();
        reject(new Error(`${path}: invalid XML: ${(err as Error).message}`));
      }
    });
    stream.on("error", reject);
    stream.on("end", () => {
      try {
        parser.close();
        resolve();
      } catch (err) {
        reject(new Error(`${path}: invalid XML: ${(err as Error).message}`));
      }
    });
  });

  if (format === "sdn-advanced-xml") {
    return {
      format,
      items: advanced.filter((a) => ethFeatureTypeIds.has(a.featureTypeId)).map((a) => a.item),
    };
  }
  return { format, items: classic };
}
