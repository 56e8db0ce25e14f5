import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      "artifacts/**",
      "cache/**",
      "types/**",
      "coverage/**",
      "data/**",
      "circuits/build/**",
      "deployments/**",
      "bench/results/**",
      "ignition/deployments/**",
      "dist/**",
      "tmp/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/no-unused-expressions": "off",
      // Node 24 runs our TypeScript by stripping types: only erasable syntax is allowed. (tsc's
      // `erasableSyntaxOnly` would say the same, but it also rejects the generated typechain
      // files in types/, which are only ever imported as types.)
      "@typescript-eslint/no-namespace": "error",
      "@typescript-eslint/parameter-properties": "error",
      "no-restricted-syntax": [
        "error",
        { selector: "TSEnumDeclaration", message: "enums are not erasable: use a const object" },
        { selector: "TSImportEqualsDeclaration", message: "not erasable: use import" },
        { selector: "TSExportAssignment", message: "not erasable: use export default" },
      ],
    },
  },
  {
    // Configuration is parsed once, in relayer/config/ (DEVELOPERS.md "Layers").
    files: ["relayer/**/*.ts"],
    ignores: ["relayer/config/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "read settings from Config (relayer/config/): the environment is parsed there",
        },
      ],
    },
  },
  {
    // CommonJS configuration files read by tools that do not load ESM (dependency-cruiser).
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { module: "writable", require: "readonly" },
    },
  },
  prettier,
);
