/**
 * What one message between two processes on 127.0.0.1 costs this machine after a quiet spell: a
 * 200-byte write() on a kept-open TCP connection (the sender's time in the call) and its echo's
 * round trip, at several gaps between messages. A paced request to the relayer crosses processes
 * several times (client, database, provider) after 100 ms of quiet; bench:analysis records these
 * beside its latency so that a run's paced figures can be read against the machine's own cost of
 * waking (docs/analysis.md). Run alone: `node bench/idle-wake.ts` prints the figures as JSON.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { median, rounded } from "./stats.ts";

export interface IdleWakeFigure {
  gap_ms: number;
  messages: number;
  write_us_p50: number;
  round_trip_us_p50: number;
}

const PAYLOAD = Buffer.alloc(200, 0x61);

/** The echo peer: its own process, as the database and the provider are. */
function servePeer(): void {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on("data", (d) => socket.write(d));
  });
  server.listen(0, "127.0.0.1", () => process.send!((server.address() as net.AddressInfo).port));
  process.on("disconnect", () => process.exit(0));
}

export async function loopbackAfterIdle(
  gapsMs: readonly number[] = [0, 10, 100],
): Promise<IdleWakeFigure[]> {
  const peer = fork(import.meta.filename, ["peer"], { stdio: "ignore" });
  try {
    const [port] = (await once(peer, "message")) as [number];
    const socket = net.connect(port, "127.0.0.1");
    socket.setNoDelay(true);
    await once(socket, "connect");
    const figures: IdleWakeFigure[] = [];
    for (const gap of gapsMs) {
      const writes: number[] = [];
      const trips: number[] = [];
      // Fewer messages at long gaps: the figure is a median, and 60 of them take 6 s at 100 ms.
      const messages = gap >= 50 ? 60 : 300;
      for (let i = 0; i < messages; i++) {
        if (gap > 0) await sleep(gap);
        const echoed = once(socket, "data");
        const start = process.hrtime.bigint();
        socket.write(PAYLOAD);
        const written = process.hrtime.bigint();
        await echoed;
        const back = process.hrtime.bigint();
        writes.push(Number(written - start) / 1000);
        trips.push(Number(back - start) / 1000);
      }
      figures.push({
        gap_ms: gap,
        messages,
        write_us_p50: rounded(median(writes), 1),
        round_trip_us_p50: rounded(median(trips), 1),
      });
    }
    socket.destroy();
    return figures;
  } finally {
    peer.kill();
  }
}

if (process.argv[2] === "peer") servePeer();
else if (import.meta.filename === process.argv[1])
  console.log(JSON.stringify(await loopbackAfterIdle([0, 1, 10, 20, 50, 100, 200]), null, 2));
