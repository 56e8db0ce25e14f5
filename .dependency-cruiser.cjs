/**
 * The relayer's dependency rules (DEVELOPERS.md "Layers"), enforced by `npm run lint:deps`.
 * Type-only imports count: a type import is still an arrow a reader must follow.
 */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "Arrows point down: no module reaches itself again through its imports.",
      severity: "error",
      from: { path: "^relayer/" },
      to: { circular: true },
    },
    {
      name: "adapters-only-from-the-root",
      comment:
        "Route and worker modules are leaves: only the composition root (relayer/app/) imports them.",
      severity: "error",
      from: { path: "^relayer/", pathNot: "^relayer/app/" },
      to: { path: "^relayer/[^/]+/routes[.]ts$" },
    },
    {
      name: "root-only-from-entry-points",
      comment: "Nothing under relayer/ but the entry points imports the composition root.",
      severity: "error",
      from: {
        path: "^relayer/",
        pathNot: ["^relayer/app/", "^relayer/main[.]ts$", "^relayer/execution/main[.]ts$"],
      },
      to: { path: "^relayer/app/" },
    },
    {
      name: "areas-through-their-index",
      comment:
        "A folder of relayer/ imports another only through its index.ts, the area's public surface.",
      severity: "error",
      from: { path: "^relayer/([^/]+)/", pathNot: "^relayer/(app|config)/" },
      to: { path: "^relayer/[^/]+/.", pathNot: ["^relayer/$1/", "^relayer/[^/]+/index[.]ts$"] },
    },
    {
      name: "root-through-index-and-adapters",
      comment:
        "The composition root imports an area through its index.ts and mounts its adapters " +
        "(routes.ts, worker.ts), which no one else imports.",
      severity: "error",
      from: { path: "^relayer/app/" },
      to: {
        path: "^relayer/[^/]+/.",
        pathNot: ["^relayer/app/", "^relayer/[^/]+/(index|routes|worker)[.]ts$"],
      },
    },
    {
      name: "config-through-index-and-schemas",
      comment:
        "The configuration imports an area through its index.ts or its configuration schema " +
        "(config.ts), which it parses once at start.",
      severity: "error",
      from: { path: "^relayer/config/" },
      to: {
        path: "^relayer/[^/]+/.",
        pathNot: ["^relayer/config/", "^relayer/[^/]+/(index|config)[.]ts$"],
      },
    },
    {
      name: "platform-below-areas",
      comment:
        "The platform (errors, config, storage, queue, deployments, chains, devnet, auth, limits, " +
        "HTTP kit, context) imports no area. Configuration reads an area's own configuration " +
        "schema (<area>/config.ts) to parse its file once at start.",
      severity: "error",
      from: {
        path: "^relayer/(errors|config|store|queue|deployments|chains|devnet|auth|limits|http)/|^relayer/context[.]ts$",
      },
      to: {
        path: "^relayer/(accounts|agents|analysis|app|artifacts|audit|compliance|execution|integrations|monitors|proofs|routing|simulation|workflows)/",
        pathNot: "^relayer/[^/]+/config[.]ts$",
      },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "[.]d[.]ts$" },
  },
};
