// js/bridge.ts is the one typed API every caller of skillfs uses: an
// extension page or worker that runs the WebAssembly module itself
// (loadSkillfs), and a content script that reaches a host running it over a
// port (connectSkillfs / serveSkillfs). It holds no logic of its own beyond
// moving calls across; the module decides, and enforces capabilities.

import { fromBase64, toBase64 } from "./base64.js";
import * as outside from "./outside.js";
import { WorkerUnavailable, workerRunner, type Execution, type WasiOutcome, type WasiRunner } from "./wasi.js";
import { Sources, choiceArgs, type FetchOptions, type IndexPreview, type InstallOptions, type InstallReport, type McpInstallOptions, type McpPreview, type Origin, type PreviewInstallOptions, type UpdateInfo, type UpdateOutcome, type UpdateResult, type UrlPreview } from "./sources.js";

export { WorkerUnavailable, workerRunner } from "./wasi.js";
export type { Execution, WasiOutcome, WasiRunner } from "./wasi.js";
export type { FetchOptions, IndexEntry, IndexPreview, InstallOptions, InstallReport, McpInstallOptions, McpOffer, McpPreview, Origin, PreviewInstallOptions, Refusal, UpdateInfo, UpdateOutcome, UpdateResult, UrlPreview } from "./sources.js";

/** Stable error codes; see pkg/skillerr. */
export type ErrorCode =
  | "SkillNotFound" | "InvalidManifest" | "InvalidArchive" | "PathRejected"
  | "PermissionDenied" | "Conflict" | "QuotaExceeded" | "Disabled" | "NotVisible"
  | "NotText" | "TooLarge" | "ToolNotAllowed" | "Timeout" | "InvalidArgument"
  | "Integrity" | "InvalidIndex" | "FetchFailed" | "WasmError"
  | "Internal";

/** One problem found in a SKILL.md. */
export interface Diagnostic {
  code: string;
  severity: "error" | "warning";
  field: string;
  message: string;
  /** The 1-based line of SKILL.md it is at; absent when it has none. */
  line?: number;
}

/** Every failure of a skillfs call is a SkillfsError with a stable code.
 * Its message starts with the code (and reason), so whatever shows only
 * the message (a framework's tool error, a log line) keeps it. */
export class SkillfsError extends Error {
  override name = "SkillfsError";
  constructor(
    /** What went wrong, for a person, without the code. */
    readonly detail: string,
    readonly code: ErrorCode,
    /** A finer stable token, such as "zip-slip" or "dot-dot". */
    readonly reason = "",
    /** What the error is about: a skill id, a path, an archive entry. */
    readonly subject = "",
    /** The diagnostics of a refused SKILL.md; empty for several skills
     * (reason "invalid-skills"), whose each are in invalid. */
    readonly diagnostics: Diagnostic[] = [],
    /** The skills of an archive that cannot be installed, every one (the
     * message names the first five): importZip with choose installs the
     * others. */
    readonly invalid: SkillError[] = [],
    /** detail without the subject before it (the module's says
     * "SUBJECT: MSG", MSG with its cause, if any): for a sentence that
     * names the subject itself, so that none parses detail. An error made
     * on this side, whose detail names no subject before it, has detail. */
    readonly msg = detail,
  ) {
    super(`${code}${reason ? ` (${reason})` : ""}: ${detail}`);
  }
}

/** Why one skill of an archive cannot be installed. */
export interface SkillError {
  code: ErrorCode;
  reason: string;
  /** Its folder in the archive ("." at the root). */
  subject: string;
  /** The name it would be installed under, as far as its SKILL.md could
   * be read: the name stated, or its folder's when none is. "" when the
   * frontmatter cannot be read (missing, not YAML), the name is not a
   * string, or a skill at the archive's root states none. */
  name: string;
  /** For a person, without the code. */
  message: string;
  diagnostics: Diagnostic[];
  /** Of a skill refused because a skill it depends on is neither
   * installed nor part of the import (reason "unknown-skill"): that
   * skill's id. */
  needs?: string;
}

/** The most skills one setEnabledMany or removeMany changes (more are
 * refused whole, TooLarge): pkg/registry's MaxBatch, which
 * web/test/port.test.mjs holds this to. */
export const MAX_BATCH = 5000;

/** What a person calls a skill of an archive that cannot be installed: its
 * name, else its folder's (as a skill that states no name is called),
 * else, at the archive's root, root (the archive's own name). */
export const skillErrorLabel = (e: SkillError, root: string): string =>
  e.name || (e.subject === "." ? root : e.subject.slice(e.subject.lastIndexOf("/") + 1));

/** Options every session call takes. */
export interface CallOptions {
  /** Aborting stops waiting at once (the call rejects with signal.reason,
   * as fetch does) and tells the module, which stops the call at its next
   * step. */
  signal?: AbortSignal | undefined;
}

export interface Dependencies {
  tools: string[];
  mcp: string[];
  skills: string[];
}

/** The frontmatter's fields for the host, in SkillMeta and SkillBlock: it
 * may fork a sub-agent (context "fork", agent), pick the model or run
 * hooks. */
export interface HostFields {
  model?: string;
  /** "fork": run the skill in a sub-agent. */
  context?: string;
  agent?: string;
  /** The frontmatter's hooks as written. */
  hooks?: unknown;
  license?: string;
  compatibility?: string;
  author?: string;
}

/** The registry's record of an installed skill. */
export interface SkillMeta extends HostFields {
  id: string;
  name: string;
  description: string;
  /** "/skills/<id>/SKILL.md" */
  location: string;
  /** "/skills/<id>/" */
  baseDir: string;
  source: string;
  /** Where the skill is published and the digest it was verified against;
   * null for one imported from bytes (importZip). */
  origin: Origin | null;
  enabled: boolean;
  /**
   * The installed instance of the skill: an opaque id, new whenever the
   * skill is installed fresh (also under the id of one removed, however
   * soon), kept by replacing imports and every edit. Pins and usage
   * statistics are bound to it. Compare it only for equality.
   */
  instance: string;
  createdAt: string;
  updatedAt: string;
  version: string;
  digest: string;
  size: number;
  fileCount: number;
  allowedTools: string[];
  userInvocable: boolean;
  disableModelInvocation: boolean;
  dependencies: Dependencies;
  /** The tools and MCP servers skill.yaml's prerequisites name (absent
   * when none): routing halves the score of a skill whose host has not
   * registered one of them. */
  prerequisites?: Prerequisite[];
  triggers: string[];
  antiTriggers: string[];
  whenToUse: string;
  /** The titles of SKILL.md's sections, which routing reads (absent when
   * there are none). */
  headings?: string[];
  argumentHint: string;
  arguments: string[];
  costHint: string;
  parallelSafe: boolean;
  always: boolean;
  diagnostics: Diagnostic[];
}

/** Something a skill needs from its host before it can run. */
export interface Prerequisite {
  kind: "tool" | "mcp";
  name: string;
}

export type ConflictPolicy = "rename" | "replace" | "fail";

/** How far an import is: its totals count the skills it writes, not
 * those it finds installed byte for byte and leaves as they are. */
export interface ImportProgress {
  phase: "prepare" | "commit" | "done";
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

/** An import's signal (CallOptions) stops it at its next step: nothing
 * is stored unless its commit had completed, which onChange reports. */
export interface ImportOptions extends CallOptions {
  onConflict?: ConflictPolicy;
  /** Install a skill byte for byte identical to the installed one of its
   * name as a renamed copy; without it, "rename" reports it in
   * alreadyInstalled instead. */
  copy?: boolean;
  /** Where the archive came from: a file name or a URL. */
  source?: string;
  onProgress?: (p: ImportProgress) => void;
  /** A person's choice after previewZip: only the skills named here (by
   * their SKILL.md name) are installed, each kept beside an installed
   * one of its name ("rename") or updating it ("replace"); the others are
   * listed in skipped (or alreadyInstalled, installed byte for byte), and
   * those that cannot be installed in invalid.
   * Without it, an archive with a skill that cannot be installed is
   * refused whole (SkillfsError.invalid lists them). */
  choose?: Record<string, "rename" | "replace">;
  /** The preview choose was made from (previewZip's): a skill chosen that
   * would now be compared with another installed skill than the one it
   * was shown against (updated, edited, installed or removed since) makes
   * the import fail, Conflict "changed-since-preview", nothing installed. */
  preview?: ImportPreview;
}

/** One skill of an archive, as previewZip reads it. */
export interface PreviewSkill {
  name: string;
  description: string;
  version: string;
  /** Its folder in the archive ("." at the root). */
  dir: string;
  /** dir as a repository names it, inside the top-level folder all the
   * archive's skills share ("." for one that is the whole archive): what
   * an install from a source records (origin.dir). */
  folder: string;
  size: number;
  fileCount: number;
  digest: string;
  /** new; conflict (another skill of its name is installed: installed;
   * of an address previewed, the one installed from the same folder of its
   * download, whatever its id, when there is one); installed (that skill,
   * byte for byte); invalid (it cannot be installed: error says why, and
   * name may be ""). */
  status: "new" | "conflict" | "installed" | "invalid";
  installed: string;
  /** Of an address previewed: installed is the skill installed from this
   * skill's folder of a download of it (or from the folder it moved
   * from), or the one of its name installed from the whole of such a
   * download, not only one of its name, so replacing it is this one's
   * update. */
  update?: boolean;
  /** The digest of installed, as compared (ImportOptions.preview). */
  installedDigest?: string;
  /** Its SKILL.md's diagnostics, and the note (code "dependency-disabled")
   * an importZip with no choice would store it with (for a choice,
   * previewNotes); an invalid skill's are in error only. */
  diagnostics: Diagnostic[];
  /** The skills it depends on (skill_dependencies). */
  dependencies: string[];
  error?: SkillError;
}

export interface ImportPreview {
  skills: PreviewSkill[];
  /** The entries an import leaves out. */
  dropped: string[];
  /** The installed skills the archive's skills name (as a dependency, or
   * as the one they would update), by id: what previewNotes reads. */
  installedSkills: Record<string, { enabled: boolean; noted: boolean }>;
}

export interface ImportResult {
  skills: SkillMeta[];
  /** Ids of installed skills that were replaced. */
  replaced: string[];
  /** Ids of installed skills the archive holds byte for byte: left as they
   * are, not installed again, whether chosen (under "rename") or left out
   * by choose (previewZip's "installed"). From a source (copy), only those
   * installed from that very source. */
  alreadyInstalled: string[];
  /** Archive entries left out: those outside every skill folder (a
   * repository's README, its symbolic links), and operating-system clutter. */
  dropped: string[];
  /** The skills ImportOptions.choose left out, by name, but for those
   * installed already byte for byte (alreadyInstalled). */
  skipped?: string[];
  /** The archive's skills that cannot be installed, left out of an import
   * that chose the others. */
  invalid: SkillError[];
  revision: number;
  /** Every skill's diagnostics, by id. */
  diagnostics: Record<string, Diagnostic[]>;
}

export interface TreeEntry {
  path: string;
  isDir: boolean;
  size: number;
  modTime: string;
}

/** A committed change, from this context or another of the same origin.
 * "origin": only where the skills came from changed (an update check
 * found them current against a newer download), nothing a session sees. */
export interface Change {
  revision: number;
  kind: "import" | "replace" | "enable" | "disable" | "remove" | "edit" | "dependencies" | "origin";
  ids: string[];
}

export interface SessionOptions {
  /** The conversation or tab the session serves; pins are kept per context. */
  contextId: string;
  /** Skills the user selected; every enabled skill when absent. */
  skills?: string[];
  /** Tools the host can run. */
  availableTools?: string[];
  /** Tools the host always keeps, whatever skills are active. */
  baseTools?: string[];
  /** MCP servers the host has. */
  mcpServers?: string[];
  /** The agent's working directory, absolute and clean ("/home/u/proj"):
   * relative path patterns in allowed-tools (`Read(*.md)`) are relative to
   * it, so an absolute path below it is admitted as the path relative to it,
   * one outside it is not. Unknown when absent: a relative pattern then
   * admits only relative paths. */
  workingDirectory?: string;
}

/** Options of Session.activate. */
export interface ActivateOptions extends CallOptions {
  /** The skill's arguments ($ARGUMENTS, $0, …), as the model gives them. */
  arguments?: string;
}

export interface CatalogOptions extends CallOptions {
  format?: "xml" | "json";
  mode?: "full" | "names" | "off";
  /** Characters; the catalog degrades in tiers that keep every skill
   * named (full descriptions for the skills needed now, first sentences,
   * names, a list of names) and says what it did: its root's (XML) or
   * first object's (JSON) shown, described and total. 8,000 by default:
   * about 2,000 tokens a turn. */
  budget?: number;
  /** The user's message: the skills the router finds for it keep their
   * full descriptions. */
  query?: string;
  /** Caps the catalog in tokens as countTokens counts them (the host's
   * tokenizer), besides budget: the largest catalog within both is
   * returned. Counted on this side of the bridge, so it works over a port
   * as directly. */
  tokens?: number;
  countTokens?: (text: string) => number | Promise<number>;
}

/** A host's text embedder for routing's semantic stage (see
 * Session.useEmbedder); skillfs ships no model. */
export interface Embedder {
  /** Names the model: vectors of different models are never compared. */
  model: string;
  /** One vector per text, all of one length. */
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

/** A skill's instructions, ready for the prompt. */
export interface SkillBlock extends HostFields {
  id: string;
  name: string;
  /** The skill_content block: body, base directory and resource list. */
  content: string;
  baseDir: string;
  resources: string[];
  /** True when the skill was already active in this session. */
  alreadyActive: boolean;
  /** The raw arguments of an explicit invocation. */
  arguments?: string;
  argumentHint?: string;
}

/** A skill the user may invoke by name, for a slash menu. */
export interface Command {
  id: string;
  name: string;
  description: string;
  /** What the user types: "/skill:<name>". */
  invocation: string;
  argumentHint: string;
  /** Only the user can run it: the model's activate refuses it. */
  disableModelInvocation: boolean;
}

export interface ActiveTools {
  tools: string[];
  mcpServers: string[];
}

/** A tool call's input: a string, or the structured input of a framework's tool call. */
export type ToolInput = string | Record<string, unknown>;

export interface ToolCheckOptions extends CallOptions {
  /** Tool name → the input field its allowed-tools specifiers vet, over the defaults. */
  fields?: Record<string, string>;
}

/** ActiveTools under a name no agent framework uses. */
export type SkillToolSet = ActiveTools;

export interface ToolDecision {
  allowed: boolean;
  /** Why a call is refused: a stable token. */
  reason?: string;
  /** Why a call is refused, for a person. */
  message?: string;
}

/** A candidate's score, component by component (the weights docs/architecture.md lists under Routing). */
export interface ScoreBreakdown {
  /** How well the skill matches the request, 0..1: lexical relevance over
   * name, triggers, when_to_use and description (or semantic similarity). */
  intent: number;
  /** 1 when named by the user, 0.9 when a trigger occurs, 0.6 otherwise. */
  trigger: number;
  /** (successes + 1) / (runs + 2): 0.5 for a skill never run. */
  successRate: number;
  /** The share of what it needs (its tool and MCP dependencies and
   * prerequisites) that the host has: 1 when all or nothing is needed.
   * Below 1 the skill is unavailable and its score is halved. */
  readiness: number;
  /** 1 for cost hint low, 0.5 for medium or none, 0 for high. */
  cost: number;
  /** 1 when no other candidate scores within 0.05 of it or higher, 0
   * otherwise. */
  conflict: number;
  /** -0.5 when one of its anti-triggers occurs, 0 otherwise. */
  antiTrigger: number;
}

export interface RouteCandidate {
  id: string;
  name: string;
  /** How the skill was recalled: forced, trigger, lexical or semantic. */
  source: "forced" | "trigger" | "lexical" | "semantic";
  /** The triggers the query matched. */
  triggers?: string[];
  score: number;
  forced: boolean;
  /** Other skills that say exactly what this one says (copies), counted
   * once as this candidate. */
  identical?: string[];
  breakdown: ScoreBreakdown;
  /** The score explained in sentences a UI can show. */
  why: string[];
}

export interface RoutePlan {
  /** The skill to activate; "" when there is no clear choice. */
  primary: string;
  /** Why: forced (named by the user), clear (clears the threshold and the
   * margin, or is named by the request and far more relevant than the
   * skills that tie with it), close (candidates within the margin: see
   * close), below (none reaches the threshold) or none (nothing recalled). */
  decision: "forced" | "clear" | "close" | "below" | "none";
  /** With decision "close": the candidates the request could be for, best
   * first; a host may ask the user. */
  close?: string[];
  fallbacks: string[];
  parallel: string[][];
}

export interface RouteResult {
  candidates: RouteCandidate[];
  plan: RoutePlan;
}

/** A run of a skill's module (session.execute). */
export interface ExecuteOptions extends CallOptions {
  /** Given to the module as SKILL_INPUT (JSON); null when absent. */
  input?: unknown;
  /** 30,000 by default, at most 300,000: the Worker is stopped then. */
  timeoutMs?: number;
  /** The module's memory cap, 128 by default, at most 1,024. */
  memoryMb?: number;
  /** RANDOM_SEED, an integer within ±(2^53 - 1); a random one when absent
   * (the result says which, exactly). */
  seed?: number;
}

/** What a module's run gave. A run that failed or timed out rejects
 * instead (WasmError, Timeout); the audit log keeps its record either way. */
export interface ExecuteResult {
  status: "success";
  exitCode: number;
  /** stdout parsed as JSON, when it is JSON; else null. */
  output: unknown;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
  seed: number;
  /** What the run had: "read:/skill", "write:/scratch". */
  permissions: string[];
  /** allowed-tools that grant a module nothing in a browser, and why. */
  denied: { tool: string; reason: string }[];
}

export interface RouteOptions extends CallOptions {
  /** The conversation's earlier user messages, oldest first; the last three count. */
  history?: string[];
  /** Where the conversation happens: the page's title, the task at hand. */
  context?: string;
  /** How many skills relevance alone recalls (1..50; 3 by default). */
  topK?: number;
  /** The score a candidate needs to be picked (0..1; 0.65 by default). */
  threshold?: number;
  /** How far the best candidate must lead the next to be picked (0..1;
   * 0.04 by default). */
  margin?: number;
}

/** What the agent does next in a plan run (seed 004's fallback state
 * machine): activate `skill` and do the task with it, do it with the
 * host's own tools ("generic-tools"), or stop ("done", with `result`). */
export interface PlanStep {
  kind: "skill" | "generic-tools" | "done";
  /** The skill's id, for kind "skill". */
  skill?: string;
  /** 1, or 2 when the step is tried again after a retryable failure. */
  attempt: number;
  /** The run's state: "running", or "success"/"exit" once done. */
  state: "running" | "success" | "exit";
  /** How a finished run ended. */
  result?: "success" | "failed";
  /** How many retries the run has left (2 at the start). */
  repairBudget: number;
}

/** One change of a run's state; each is in the audit log too. */
export interface PlanTransition {
  from: "selected" | "running" | "success" | "retryable_failure" | "fatal_failure" | "fallback" | "exit";
  to: PlanTransition["from"];
  /** The skill (or "generic-tools") the run was on. */
  skill?: string;
  /** The code and reason of the failure that caused it. */
  code?: string;
  reason?: string;
}

export interface PlanRun {
  /** The run's id, for advance. */
  run: string;
  plan: RoutePlan;
  step: PlanStep;
  /** The transitions this call made, in order. */
  transitions: PlanTransition[];
}

/** What the agent reports of the step it took. A failure's `code` (a
 * SkillfsError's code, or the host tool's own) decides whether the step is
 * retried: PermissionDenied, SkillNotFound, NotVisible, Disabled,
 * InvalidManifest, InvalidArchive, InvalidArgument, PathRejected, NotText,
 * TooLarge and ToolNotAllowed never are; any other code, or none, once. */
export interface StepOutcome {
  outcome: "success" | "failed";
  error?: { code: string; reason?: string };
  /** The step reported, as the run gave it (its skill, or "generic-tools",
   * and its attempt): a report of any other step, such as one sent twice,
   * then changes nothing and fails (InvalidArgument, "stale-step"). */
  step?: { skill: string; attempt: number };
}

export interface SessionStatus {
  session: string;
  contextId: string;
  /** A visible skill changed since the snapshot; refresh moves on. */
  stale: boolean;
  /** Visible skills that changed since the snapshot. Those replaced or
   * edited are still read as the session's version until refresh (or until
   * that version is collected: Conflict, reason "version-collected"); those
   * removed or disabled fail with Conflict, reason "stale". */
  changed: string[];
  diagnostics: Diagnostic[];
  revision: number;
  visible: string[];
  activated: string[];
}

export interface PinResult {
  pinned: string[];
  /** Pins dropped because their skill is gone or disabled. */
  dropped: Diagnostic[];
}

/** What a file read through a session returns. */
export interface SessionFile {
  bytes: Uint8Array;
  /** What the bytes are: "text/markdown; charset=utf-8", "text/plain;
   * charset=utf-8", "application/json" for text (valid UTF-8 without NUL
   * bytes), else the extension's type such as "image/png", or
   * "application/octet-stream". */
  mediaType: string;
  /** Whether the file is text a model can read (mediaType text/* or JSON). */
  isText: boolean;
  /** The file decoded as UTF-8; meaningful only when isText. */
  text(): string;
}

export type Capability = "admin" | "agent" | "none";

type Args = Record<string, unknown>;

/** How calls reach the module: in this context, or over a port. */
interface Transport {
  call(method: string, args: Args, bytes?: Uint8Array, onProgress?: (p: unknown) => void, signal?: AbortSignal): Promise<[unknown, Uint8Array | undefined]>;
  onChange(listener: (c: Change) => void): () => void;
}

/** One open skillfs, direct or over a port. */
export class Skillfs {
  readonly registry: Registry;

  /** @internal loadSkillfs and connectSkillfs make it. */
  constructor(private readonly transport: Transport) {
    this.registry = new Registry(transport);
  }

  /** Calls listener for every committed change, also other tabs'. */
  onChange(listener: (c: Change) => void): () => void {
    return this.transport.onChange(listener);
  }

  async openSession(opts: SessionOptions & CallOptions): Promise<Session> {
    const { signal, ...args } = opts;
    const [res] = await this.transport.call("resolver.openSession", args, undefined, undefined, signal);
    return new Session(this.transport, (res as { session: string }).session);
  }
}

/** A skill of a preview as previewNotes sends it. */
type NoteRow = Pick<PreviewSkill, "name" | "status" | "installed" | "dependencies">;

/** What previewNotes sends of a preview: only what the notes depend on,
 * the skills that can be installed and depend on others, those they name
 * (by name or by the installed id they replace), and the installed
 * skills either names. A skill that depends on none gets no note and
 * turns none off, so an archive of thousands without dependencies asks
 * nothing, and one with a few sends those few: the module decodes what it
 * is sent in one task. Found once per preview (a preview is not changed
 * once made), since a panel asks at every change of choice; parts, for
 * previewPart, when first asked. */
interface NoteIndex {
  rows: PreviewSkill[];
  wire: NoteRow[];
  installedSkills: ImportPreview["installedSkills"];
  /** Whether any of rows depends on a skill: else no note at all. */
  depends: boolean;
  parts?: Map<string, ImportPreview>;
}

const noteIndexes = new WeakMap<ImportPreview, NoteIndex>();

function noteIndex(preview: ImportPreview): NoteIndex {
  let ix = noteIndexes.get(preview);
  if (ix) return ix;
  const valid = preview.skills.filter((s) => !s.error);
  const named = new Set(valid.flatMap((s) => s.dependencies ?? []));
  const rows = valid.filter((s) => (s.dependencies ?? []).length > 0 || named.has(s.name) || (s.installed !== "" && named.has(s.installed)));
  const wire = rows.map(({ name, status, installed, dependencies }) => ({ name, status, installed, dependencies: dependencies ?? [] }));
  const ids = new Set([...named, ...rows.flatMap((s) => (s.installed ? [s.installed] : []))]);
  const installedSkills = Object.fromEntries(Object.entries(preview.installedSkills ?? {}).filter(([id]) => ids.has(id)));
  ix = { rows, wire, installedSkills, depends: wire.some((s) => s.dependencies.length > 0) };
  noteIndexes.set(preview, ix);
  return ix;
}

/** rows (a NoteIndex's) in parts, by name: skills joined where one
 * depends on an id another may take after the import (its name, or the
 * installed id it updates), transitively. Union-find, linear in the
 * skills and their dependencies. */
function partsOf(rows: PreviewSkill[], installed: ImportPreview["installedSkills"]): Map<string, ImportPreview> {
  const up = rows.map((_, i) => i);
  const root = (i: number): number => {
    while (up[i] !== i) i = up[i] = up[up[i]];
    return i;
  };
  const taking = new Map<string, number>();
  const join = (i: number, id: string) => {
    const j = taking.get(id);
    if (j !== undefined) up[root(i)] = root(j);
  };
  rows.forEach((s, i) => {
    for (const id of [s.name, s.installed]) {
      if (!id) continue;
      join(i, id);
      if (!taking.has(id)) taking.set(id, i);
    }
  });
  rows.forEach((s, i) => (s.dependencies ?? []).forEach((d) => join(i, d)));
  const byRoot = new Map<number, ImportPreview>();
  const parts = new Map<string, ImportPreview>();
  rows.forEach((s, i) => {
    let p = byRoot.get(root(i));
    if (!p) byRoot.set(root(i), (p = { skills: [], dropped: [], installedSkills: {} }));
    p.skills.push(s);
    for (const id of [...(s.dependencies ?? []), s.installed]) if (id && installed[id]) p.installedSkills[id] = installed[id];
    parts.set(s.name, p);
  });
  return parts;
}

/** The part of preview that holds the skills whose notes (previewNotes)
 * a choice for the skill name can change: those it depends on or that
 * depend on it, directly or through others of the archive, by name or by
 * the installed id one updates, with the installed skills they name; a
 * preview of its own, whose previewNotes under the same choices gives
 * its skills the notes the whole preview's would. undefined when a
 * choice for name changes no note (it depends on no skill of the archive
 * and none on it, and depends on no skill at all). So a change of one
 * choice sends what it can change, not the whole archive again. */
export function previewPart(preview: ImportPreview, name: string): ImportPreview | undefined {
  const ix = noteIndex(preview);
  ix.parts ??= partsOf(ix.rows, ix.installedSkills);
  return ix.parts.get(name);
}

/** The management side: admin capability only. */
export class Registry {
  private readonly sources: Sources;

  /** @internal Skillfs makes it. */
  constructor(private readonly t: Transport) {
    this.sources = new Sources((m, a, b, p, s) => t.call(m, a, b, p, s));
  }

  private async value<T>(method: string, args: Args = {}): Promise<T> {
    return (await this.t.call(method, args))[0] as T;
  }

  private async bytes(method: string, args: Args): Promise<Uint8Array> {
    return (await this.t.call(method, args))[1] ?? new Uint8Array();
  }

  /** Installs the skills of a .zip or .skill archive: its bytes, or an
   * ArrayBuffer such as file.arrayBuffer() gives. A skill that would
   * depend on a disabled skill is installed disabled, with a warning
   * (code "dependency-disabled") naming it, which previewZip shows first;
   * an update that would so disable a skill enabled skills depend on is
   * refused (Conflict, reason "has-dependents"). */
  async importZip(bytes: Uint8Array | ArrayBuffer, opts: ImportOptions = {}): Promise<ImportResult> {
    const [res] = await this.t.call(
      "registry.importZip",
      {
        onConflict: opts.onConflict ?? "rename", source: opts.source ?? "", copy: opts.copy ?? false,
        ...choiceArgs(opts.choose, opts.preview),
      },
      asBytes(bytes, "registry.importZip"),
      opts.onProgress as ((p: unknown) => void) | undefined,
      opts.signal,
    );
    const r = res as Omit<ImportResult, "diagnostics">;
    return { ...r, diagnostics: Object.fromEntries(r.skills.map((s) => [s.id, s.diagnostics])) };
  }

  /** What importZip would install from the archive, against the installed
   * skills, with each skill's diagnostics; nothing is stored. */
  async previewZip(bytes: Uint8Array | ArrayBuffer, opts: CallOptions = {}): Promise<ImportPreview> {
    const [v] = await this.t.call("registry.previewZip", {}, asBytes(bytes, "registry.previewZip"), undefined, opts.signal);
    return v as ImportPreview;
  }

  /** The note (code "dependency-disabled") with which an import of the
   * archive previewed would store each skill, by name, under choose and
   * copy (as importZip's; without choose, every skill under "rename"): a
   * skill that updates an installed one starts as it is and is the one its
   * dependents in the archive get, one kept beside it starts enabled and
   * leaves them the installed one. For a preview to say what each choice
   * does; nothing is read but preview. Of one change of choice, ask for
   * the part of the preview it can change (previewPart). */
  previewNotes(preview: ImportPreview, choose?: Record<string, "rename" | "replace">, copy = false): Promise<Record<string, Diagnostic>> {
    const { wire, installedSkills, depends } = noteIndex(preview);
    // A choice other than rename and replace still goes, for the module to refuse.
    const refused = Object.entries(choose ?? {}).filter(([, p]) => p !== "rename" && p !== "replace");
    if (!depends && refused.length === 0) return Promise.resolve({});
    const chosen = choose && Object.fromEntries([...wire.flatMap((s) => (s.name in choose ? [[s.name, choose[s.name]]] : [])), ...refused]);
    return this.value("registry.previewNotes", { preview: { skills: wire, installedSkills }, ...(chosen ? { choose: chosen } : {}), copy });
  }

  /**
   * Installs the skills a discovery index publishes (all, or those named):
   * /.well-known/agent-skills/index.json (v0.2.0, every artifact verified
   * by its digest) or the legacy /.well-known/skills/index.json (v0.1.0,
   * unverified, with a warning). This context fetches, within opts'
   * bounds; each skill is installed in its own commit, or refused whole
   * and reported. Given what previewIndex returned in place of a URL, it
   * installs from the index reviewed, without reading it again. An entry
   * installed from this index already is that skill, whatever its id:
   * left as it is (a warning, already-installed) or, in another version
   * now, updated in place, never copied.
   */
  installFromIndex(from: string | IndexPreview, opts: InstallOptions & { names?: string[] } = {}): Promise<InstallReport> {
    return this.sources.installFromIndex(from, opts);
  }
  /** What a discovery index offers, each entry against the installed
   * skills (IndexEntry.status), for a person to review; nothing is installed. */
  previewIndex(url: string, opts: FetchOptions = {}): Promise<IndexPreview> { return this.sources.previewIndex(url, opts); }
  /** Installs the skills of an MCP server with the skills extension
   * (SEP-2640), all or those named (by name or skill:// URI): every file's
   * digest and path checked before anything is stored. Given what
   * previewMcp returned in place of a URL, it installs those skills as
   * reviewed, with opts.choose, without asking for the listing again. */
  installFromMcp(from: string | McpPreview, opts: McpInstallOptions = {}): Promise<InstallReport> {
    return this.sources.installFromMcp(from, opts);
  }
  /** What an MCP server offers against the installed skills, for a person
   * to review; nothing is fetched but the listing, nothing installed. */
  previewMcp(serverUrl: string, opts: FetchOptions = {}): Promise<McpPreview> { return this.sources.previewMcp(serverUrl, opts); }
  /** Installs a .zip, .skill or .tar.gz archive or a lone SKILL.md from
   * url — or, for the page of a repository on GitHub or of a folder or file
   * in it, the skills of that folder from the archive GitHub serves (see
   * docs/sources.md); with opts.digest ("sha256:…") the bytes must match
   * it. url must be an absolute http or https URL (else InvalidArgument,
   * bad-url, nothing fetched). Throws what refuses it. */
  installFromUrl(url: string, opts: InstallOptions & { digest?: string } = {}): Promise<InstallReport> {
    return this.sources.installFromUrl(url, opts);
  }
  /** Downloads what installFromUrl would, within the same bounds, and says
   * what it holds against the installed skills (as previewZip does) and
   * what cannot be installed; nothing is stored. The preview keeps the
   * bytes for installFromPreview. */
  previewFromUrl(url: string, opts: FetchOptions & { digest?: string } = {}): Promise<UrlPreview> {
    return this.sources.previewFromUrl(url, opts);
  }
  /** Installs the bytes previewFromUrl downloaded, with the person's
   * choice (opts.choose, as importZip's) and the URL recorded as each
   * skill's origin; it downloads nothing. Bytes changed since the preview
   * are refused (Conflict, "changed-since-preview": preview again). */
  installFromPreview(preview: UrlPreview, opts: PreviewInstallOptions = {}): Promise<InstallReport> {
    return this.sources.installFromPreview(preview, opts);
  }
  /** Asks the source of every installed skill that has one (or of the
   * skills opts.ids names: no other source is contacted, and only those
   * are reported) whether it publishes something else now: indexes and
   * MCP servers by digest, so nothing unchanged is downloaded; a plain URL
   * is fetched to compare. An id that is no installed skill is refused
   * (SkillNotFound, "not-installed"), nothing asked. */
  async checkUpdates(opts: FetchOptions & { ids?: string[] } = {}): Promise<UpdateInfo[]> {
    const list = await this.list();
    if (!opts.ids) return this.sources.checkUpdates(list, opts);
    const installed = new Set(list.map((m) => m.id));
    const missing = opts.ids.find((id) => !installed.has(id));
    if (missing !== undefined) throw new SkillfsError("no skill with this id is installed", "SkillNotFound", "not-installed", missing);
    const ids = new Set(opts.ids);
    return this.sources.checkUpdates(list.filter((m) => ids.has(m.id)), opts);
  }
  /** Installs what the source of skill id publishes now, in one commit
   * that replaces it (sessions that see it go stale), unless it is what
   * is installed already. A version from a repository's download that
   * depends on skills of that download not installed (UpdateInfo.needs)
   * installs them in the same commit (UpdateResult.installed). */
  async update(id: string, opts: InstallOptions & { digest?: string } = {}): Promise<UpdateResult> {
    return this.sources.update(await this.get(id), opts);
  }
  /** Updates the skills ids as update() would, each in its own commit,
   * and says what became of each (one that cannot be updated is left as
   * it was, with why); the skills of one download are updated from one
   * download of it. An id that is no installed skill is refused
   * (SkillNotFound, not-installed) before anything is downloaded. */
  async updateMany(ids: string[], opts: InstallOptions = {}): Promise<UpdateOutcome[]> {
    const byID = new Map((await this.list()).map((m) => [m.id, m]));
    const missing = ids.find((id) => !byID.has(id));
    if (missing !== undefined) throw new SkillfsError("no skill with this id is installed", "SkillNotFound", "not-installed", missing);
    return this.sources.updateMany([...new Set(ids)].map((id) => byID.get(id)!), opts);
  }

  list(): Promise<SkillMeta[]> { return this.value("registry.list"); }
  get(id: string): Promise<SkillMeta> { return this.value("registry.get", { id }); }
  /** Enables or disables skill id. No change leaves an enabled skill
   * depending on one that is not (a session would show it without its
   * dependency): a skill an enabled one depends on is not disabled alone
   * (Conflict, reason "has-dependents", as remove), and a skill is not
   * enabled while a dependency is disabled (Conflict, reason
   * "dependency-disabled") or not installed ("dependency-not-installed");
   * the messages name them. */
  setEnabled(id: string, on: boolean): Promise<SkillMeta> { return this.value("registry.setEnabled", { id, on }); }
  /** Deletes skill id: its files, its record, its kept versions. A skill
   * another installed skill depends on is not deleted alone: Conflict,
   * reason "has-dependents", whose message names them. */
  async remove(id: string): Promise<void> { await this.value("registry.remove", { id }); }
  /** Enables or disables the skills ids (at most MAX_BATCH) in one commit
   * and one change; their records, in the order of ids, repeats dropped.
   * When one is not installed nothing changes (SkillNotFound, naming it),
   * nor when the change would leave an enabled skill outside ids
   * depending on one of them disabled, or one of them enabled depending
   * on a skill neither enabled nor in ids (the refusals of setEnabled). */
  setEnabledMany(ids: string[], on: boolean): Promise<SkillMeta[]> { return this.value("registry.setEnabledMany", { ids, on }); }
  /** Deletes the skills ids (at most MAX_BATCH) as remove does, in one
   * commit and one change; when one is not installed, or a skill outside
   * ids depends on one of them, nothing is deleted. */
  async removeMany(ids: string[]): Promise<void> { await this.value("registry.removeMany", { ids }); }
  exportZip(id: string): Promise<Uint8Array> { return this.bytes("registry.exportZip", { id }); }
  tree(id: string): Promise<TreeEntry[]> { return this.value("registry.tree", { id }); }
  readFile(id: string, path: string): Promise<Uint8Array> { return this.bytes("registry.readFile", { id, path }); }
  async readText(id: string, path: string): Promise<string> {
    return new TextDecoder().decode(await this.readFile(id, path));
  }
  writeFile(id: string, path: string, text: string): Promise<SkillMeta> { return this.value("registry.writeFile", { id, path, text }); }
  mkdir(id: string, path: string): Promise<SkillMeta> { return this.value("registry.mkdir", { id, path }); }
  removePath(id: string, path: string): Promise<SkillMeta> { return this.value("registry.removePath", { id, path }); }
  /** Moves a file or a folder (with everything in it) inside skill id, in one commit. */
  rename(id: string, from: string, to: string): Promise<SkillMeta> { return this.value("registry.rename", { id, from, to }); }
  setDependencies(id: string, deps: Partial<Dependencies>): Promise<SkillMeta> {
    return this.value("registry.setDependencies", { id, tools: deps.tools ?? [], mcp: deps.mcp ?? [], skills: deps.skills ?? [] });
  }
  /** Says which tools the host's agents have (names as allowed-tools and
   * `tool_dependencies` write them), replacing what was said before. A
   * skill declaring a tool dependency is refused (InvalidArgument,
   * tools-not-registered) by an import, an install or setDependencies
   * until this is called, and one naming a tool not in names is refused
   * (unknown-tool). The list is kept in memory only: call it on every
   * load, before importing or editing skills. */
  async registerTools(names: string[]): Promise<void> { await this.value("registry.registerTools", { names }); }
  /** Says which MCP servers the host has, as registerTools does for tools
   * (mcp-not-registered, unknown-mcp-server); in memory only likewise. */
  async registerMcpServers(names: string[]): Promise<void> { await this.value("registry.registerMcpServers", { names }); }
  /** The tools and MCP servers the host registered, which setDependencies accepts; null when it has not said. */
  registered(): Promise<{ tools: string[] | null; mcp: string[] | null }> { return this.value("registry.registered"); }
  revision(): Promise<number> { return this.value("registry.revision"); }
  /** The newest entries of the audit log of activations, invocations and reads. */
  audit(limit = 100): Promise<AuditEntry[]> { return this.value("resolver.audit", { limit }); }
  /** Deletes the pins of every context. */
  async clearPins(): Promise<void> { await this.value("resolver.clearPins"); }
  /** Deletes the usage statistics routing learns from. */
  async clearStats(): Promise<void> { await this.value("resolver.clearStats"); }
  /** Deletes the audit log. */
  async clearAudit(): Promise<void> { await this.value("resolver.clearAudit"); }
}

export interface AuditEntry {
  seq: number;
  time: string;
  contextId: string;
  session: string;
  kind: "activate" | "invoke" | "read" | "turn" | "plan" | "execute";
  skill: string;
  digest: string;
  path: string;
  durationMs: number;
  /** "ok", or the error code. */
  outcome: string;
  reason?: string;
  /** A plan run's id and one transition of it (kind "plan"). */
  run?: string;
  from?: PlanTransition["from"];
  to?: PlanTransition["from"];
  /** Seed 003's record of a module's run (kind "execute"). */
  exec?: ExecRecord;
}

/** Seed 003's audit record of a run of a skill's module. */
export interface ExecRecord {
  /** The skill's digest. */
  version: string;
  /** "sha256:…" of SKILL_INPUT and of stdout. */
  inputHash: string;
  outputHash: string;
  startMs: number;
  durationMs: number;
  permissions: string[];
  status: "success" | "failed" | "timeout";
  exitCode?: number;
  /** The first KiB of each. */
  stdout: string;
  stderr: string;
}

/** A snapshot of the visible skills for one conversation: the agent side. */
/** How many skills one putVectors call carries. */
const EMBED_BATCH = 32;

export class Session {
  private staleListeners = new Set<() => void>();
  private stopWatching?: () => void;

  /** @internal Skillfs.openSession makes it. */
  constructor(private readonly t: Transport, readonly id: string) {}

  private async value<T>(method: string, args: Args = {}, o: CallOptions = {}): Promise<T> {
    return (await this.t.call(method, { session: this.id, ...args }, undefined, undefined, o.signal))[0] as T;
  }

  private embedder?: Embedder;

  /** Routes by meaning too: route and catalog({query}) embed the message
   * with embedder, after embedding the skills that have no vector by its
   * model yet (once per version of a skill; the vectors are stored beside
   * the skills and removed with them). undefined: lexical routing only. */
  useEmbedder(embedder: Embedder | undefined): void { this.embedder = embedder; }

  /** The message's embedding for route and catalog, the skills' stored
   * first; {} without an embedder. */
  private async embedding(query: string, o: CallOptions = {}): Promise<{ queryVector?: number[]; model?: string }> {
    const e = this.embedder;
    if (!e || !query.trim()) return {};
    const need = await this.value<{ id: string; digest: string; text: string }[]>("session.vectorsNeeded", { model: e.model }, o);
    for (let i = 0; i < need.length; i += EMBED_BATCH) {
      const batch = need.slice(i, i + EMBED_BATCH);
      const vectors = await e.embed(batch.map((n) => n.text));
      await this.value("session.putVectors", {
        model: e.model,
        vectors: batch.map((n, k) => ({ id: n.id, digest: n.digest, vector: Array.from(vectors[k]) })),
      }, o);
    }
    const [q] = await e.embed([query]);
    return { queryVector: Array.from(q), model: e.model };
  }

  async catalog(opts: CatalogOptions = {}): Promise<string> {
    const { tokens, countTokens, signal, ...rest } = opts;
    const o = { signal };
    const args = { ...rest, ...(await this.embedding(rest.query ?? "", o)) };
    const at = (budget?: number) => this.value<string>("session.catalog", budget === undefined ? args : { ...args, budget }, o);
    const out = await at(rest.budget);
    if (!tokens || !countTokens || (await countTokens(out)) <= tokens) return out;
    // The largest character budget whose catalog has few enough tokens: a
    // catalog only grows with its budget.
    let lo = 0;
    let hi = [...out].length - 1;
    let best = "";
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const s = await at(mid);
      if ((await countTokens(s)) <= tokens) {
        [lo, best] = [mid, s];
      } else {
        hi = mid - 1;
      }
    }
    return best;
  }
  /** Level 2: a skill's instructions, by name or by location: what the
   * model calls. A disable-model-invocation skill is refused
   * (PermissionDenied, reason "model-invocation-disabled"); the user's
   * `invoke` still loads it. `arguments` are substituted as `invoke`
   * substitutes them, on this same path: the model's. */
  activate(nameOrLocation: string, o: ActivateOptions = {}): Promise<SkillBlock> {
    const { signal, arguments: args } = o;
    return this.value("session.activate", { name: nameOrLocation, ...(args ? { arguments: args } : {}) }, { signal });
  }
  /** The skills the user may invoke by name, sorted: a slash menu
   * (disable-model-invocation ones included). */
  commands(o?: CallOptions): Promise<Command[]> { return this.value("session.commands", {}, o); }
  /** The blocks of the skills with `always: true`, which belong in every
   * turn's prompt (turn() includes them); activates them. */
  always(o?: CallOptions): Promise<SkillBlock[]> { return this.value("session.always", {}, o); }
  /** `/skill:name args`, `/name args` or `$name args`, as the user typed it. */
  invoke(text: string, o?: CallOptions): Promise<SkillBlock> { return this.value("session.invoke", { text }, o); }
  /** Level 3: a file of a visible skill, "/skills/<id>/<path>". */
  async readFile(path: string, o: CallOptions = {}): Promise<SessionFile> {
    const [v, b] = await this.t.call("session.readFile", { session: this.id, path }, undefined, undefined, o.signal);
    const bytes = b ?? new Uint8Array();
    const mediaType = (v as { mediaType?: string } | undefined)?.mediaType ?? "application/octet-stream";
    const isText = mediaType.startsWith("text/") || mediaType === "application/json";
    return { bytes, mediaType, isText, text: () => new TextDecoder().decode(bytes) };
  }
  activeTools(o?: CallOptions): Promise<ActiveTools> { return this.value("session.activeTools", {}, o); }
  /** Runs the module (wasm/skill.wasm) of an activated skill in a Worker
   * of the host: its files read-only at /skill, a discarded /scratch when
   * its allowed-tools have Write or Edit, no network. The host must offer
   * execution (a runner; for an agent's port, ServeOptions.execute). */
  execute(nameOrId: string, opts: ExecuteOptions = {}): Promise<ExecuteResult> {
    const { signal, ...args } = opts;
    return this.value("session.execute", { name: nameOrId, ...args }, { signal });
  }
  /**
   * Whether the session allows the call. `input` is a command line, path or
   * URL, or the structured input an agent framework passes (`{ command:
   * "git status" }`), checked on the field `opts.fields` names for the tool
   * (by default Bash→command, Read/Write/Edit→file_path, Glob→pattern,
   * Grep→path, WebFetch→url, …); a missing field is refused, never read as "".
   * Of a structured input only its top-level strings are sent (see
   * checkedInput): a Write's long content or a deeply nested argument
   * does not make the call too large to check.
   */
  isToolAllowed(name: string, input: ToolInput = "", opts: ToolCheckOptions = {}): Promise<ToolDecision> {
    const { signal, ...rest } = opts;
    return this.value("session.isToolAllowed", { name, input: checkedInput(input), ...rest }, { signal });
  }
  /** Resolves when the call is allowed; rejects with ToolNotAllowed when not (see isToolAllowed). */
  async checkTool(name: string, input: ToolInput = "", opts: ToolCheckOptions = {}): Promise<void> {
    const { signal, ...rest } = opts;
    await this.value("session.checkTool", { name, input: checkedInput(input), ...rest }, { signal });
  }
  async route(query: string, opts: RouteOptions = {}): Promise<RouteResult> {
    const { signal, ...args } = opts;
    return this.value("session.route", { query, ...args, ...(await this.embedding(query, { signal })) }, { signal });
  }
  /** Starts driving a plan, seed 004's fallback state machine: the
   * router's for a message (with the route options), or a plan of the
   * session's visible skills. Returns the run and its first step; report
   * each step's outcome with advance. A session keeps at most 8 runs open
   * (TooLarge beyond); a run ends, and is forgotten, at its "done" step. */
  async startPlan(queryOrPlan: string | Pick<RoutePlan, "primary" | "fallbacks">, opts: RouteOptions = {}): Promise<PlanRun> {
    const { signal, ...args } = opts;
    if (typeof queryOrPlan !== "string") return this.value("session.startPlan", { plan: queryOrPlan }, { signal });
    return this.value("session.startPlan", { query: queryOrPlan, ...args, ...(await this.embedding(queryOrPlan, { signal })) }, { signal });
  }
  /** Reports the outcome of a run's current step and returns the next one:
   * the same step once more after a retryable failure (while the run's
   * repair budget lasts), else the next fallback, the generic tools, then
   * "done". A skill's outcome counts for its success rate. */
  advance(run: string, outcome: StepOutcome, o?: CallOptions): Promise<PlanRun> {
    return this.value("session.advance", { run, ...outcome }, o);
  }
  async recordOutcome(id: string, ok: boolean, o?: CallOptions): Promise<void> { await this.value("session.recordOutcome", { id, ok }, o); }
  pin(id: string, o?: CallOptions): Promise<PinResult> { return this.value("session.pin", { id }, o); }
  unpin(id: string, o?: CallOptions): Promise<PinResult> { return this.value("session.unpin", { id }, o); }
  pinned(o?: CallOptions): Promise<PinResult> { return this.value("session.pinned", {}, o); }
  /** The blocks to put in this turn's prompt, activated: the context's
   * pinned skills, then the `always: true` ones; pins whose skill is gone
   * or disabled are dropped. */
  turn(o?: CallOptions): Promise<{ blocks: SkillBlock[]; dropped: Diagnostic[] }> { return this.value("session.turn", {}, o); }
  /** Changes the selection; the snapshot is rebuilt. */
  select(skills?: string[], o?: CallOptions): Promise<SessionStatus> { return this.value("session.select", skills ? { skills } : {}, o); }
  /** Moves the session to the current state of its skills. */
  refresh(o?: CallOptions): Promise<SessionStatus> { return this.value("session.refresh", {}, o); }
  status(o?: CallOptions): Promise<SessionStatus> { return this.value("session.status", {}, o); }
  async close(o?: CallOptions): Promise<void> {
    this.stopWatching?.();
    await this.value("session.close", {}, o);
  }

  /** Calls listener when a visible skill changes underneath the session. */
  onStale(listener: () => void): () => void {
    this.staleListeners.add(listener);
    this.stopWatching ??= this.t.onChange(() => {
      this.status().then((s) => {
        if (s.stale) this.staleListeners.forEach((l) => l());
      }, () => {});
    });
    return () => this.staleListeners.delete(listener);
  }
}

/** What the module reads of a structured tool input, within an agent
 * call's limits (agentLimits): toolrule.CheckInput reads only top-level
 * string values, and tells a non-string from an absent field (null).
 * Strings over the string limit are sent as { tooLong: bytes }, which
 * the module refuses as too long to check (toolrule.DecodeInput); every other
 * value as 0: still present and not a string, so a vetted field among
 * them is refused, never checked as something else. Longer keys, which
 * name no field, are left out. */
function checkedInput(input: ToolInput): ToolInput {
  if (typeof input === "string" || typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (utf8Length(k) > agentLimits.string) continue;
    if (typeof v !== "string") out[k] = v === null ? v : 0;
    // Linear, as parsing the call was: the refusal says its real length.
    else out[k] = utf8Length(v) <= agentLimits.string ? v : { tooLong: new TextEncoder().encode(v).length };
  }
  return out;
}

/** The UTF-8 length of s, which the module's limits count (pkg/callargs):
 * never less than s.length, which a port's host counts. */
function utf8Length(s: string): number {
  return s.length > agentLimits.string ? s.length : new TextEncoder().encode(s).length;
}

/** Session under a name no agent framework uses. */
export { Session as SkillfsSession };

// ---- Direct transport: the module runs in this context. ----

export interface LoadOptions {
  /** Where skillfs.wasm is served; by default the skillfs.wasm beside this
   * module (new URL("./skillfs.wasm", import.meta.url)), which Vite and
   * webpack copy and rewrite on their own. esbuild does not: copy
   * skillfs.wasm and wasi-worker.js beside its bundle, or pass their URLs
   * (wasmURL, wasiWorkerURL). */
  wasmURL?: string | URL;
  /** Where wasm_exec.js is served, when globalThis.Go is not loaded yet. An
   * MV3 service worker must importScripts it itself, before any await. */
  wasmExecURL?: string | URL;
  /** The IndexedDB database; "skillfs" by default. */
  dbName?: string;
  /** How long a call (and opening the database) may take before it fails
   * with code Timeout, in milliseconds: a change waiting for another tab's
   * registry lock, a storage request that never ends. 120,000 by default. */
  callTimeoutMs?: number;
  /** Runs skills' modules for session.execute. By default, where this
   * context has Worker, a Worker per run loaded from wasiWorkerURL; an
   * MV3 service worker has none and passes a runner that asks a document
   * (see web/extension/offscreen.ts); null offers no execution. */
  wasiRunner?: WasiRunner | null;
  /** wasi-worker.js; by default the one beside this module (new
   * URL("./wasi-worker.js", import.meta.url), which esbuild does not copy).
   * Not served, session.execute fails with FetchFailed (worker-unavailable)
   * naming the URL. */
  wasiWorkerURL?: string | URL;
}

interface GoRuntime {
  argv: string[];
  importObject: WebAssembly.Imports;
  run(instance: WebAssembly.Instance): Promise<void>;
}

interface ModuleAPI {
  call(method: string, capability: Capability, args: string, bytes?: Uint8Array, onProgress?: (p: unknown) => void, signal?: AbortSignal): Promise<[string, Uint8Array | null]>;
}

type GoConstructor = new () => GoRuntime;

let instances = 0;

/** Runs the skillfs module in this context and opens its database. */
export async function loadSkillfs(opts: LoadOptions = {}): Promise<Skillfs> {
  const timeoutMs = opts.callTimeoutMs ?? 120_000;
  if (!(timeoutMs >= 1 && timeoutMs <= 2 ** 31)) {
    throw new SkillfsError(`callTimeoutMs must be a number of milliseconds from 1 to 2^31, not ${timeoutMs}`, "InvalidArgument");
  }
  const dbName = opts.dbName ?? "skillfs";
  // What can be refused at once is, before anything starts: a host with
  // no way to the module or its runtime then fetches nothing and opens no
  // database.
  const wasmURL = opts.wasmURL ?? besideBridge();
  const loadRuntime = goRuntime(opts.wasmExecURL);
  // The database opens and the module compiles while wasm_exec.js loads:
  // the module needs Go's imports only to be instantiated, and adopts the
  // database once it runs. A runtime that then fails to load stops the
  // module's download.
  const opening = openEarly(dbName);
  const fetching = new AbortController();
  const compiled = compile(wasmURL, fetching.signal);
  compiled.catch(() => {}); // reported below, unless the runtime fails first
  const listeners = new Set<(c: Change) => void>();
  const global = `__skillfs_boot_${++instances}_${Date.now()}`;
  let mod: ModuleAPI;
  try {
    const Go = await loadRuntime();
    const go = new Go();
    go.argv = ["skillfs", `--global=${global}`, `--db=${dbName}`, `--timeout-ms=${Math.ceil(timeoutMs)}`];
    const api = new Promise<ModuleAPI>((resolve, reject) => {
      (globalThis as Record<string, unknown>)[global] = {
        resolve,
        reject: (e: unknown) => reject(toSkillfsError(e)),
        onChange: (c: Change) => notifyAll(listeners, c),
        outside,
        opening,
      };
    });
    const instance = await WebAssembly.instantiate(await compiled, go.importObject);
    // A module that ends without resolving or rejecting (a panic before
    // it answered, a Go module that is not skillfs) would leave the start
    // waiting for ever.
    const ended = go.run(instance).then(() => {
      throw new SkillfsError("the module ended before it started; the console has its output", "Internal");
    });
    ended.catch(() => {}); // it also ends after rejecting: reported as that rejection
    mod = await Promise.race([api, ended]);
  } catch (e) {
    // A module that did not start may not have adopted the database, and
    // an open connection blocks every later schema change of it.
    void opening.then((db) => db?.close());
    fetching.abort();
    // The module takes its boot object off globalThis when it runs; one
    // that never ran leaves it there, and the connection with it.
    delete (globalThis as Record<string, unknown>)[global];
    // The module's own rejections are SkillfsErrors already; WebAssembly's
    // (bytes that are not a module, a wasm_exec.js of another Go) are not.
    throw toSkillfsError(e);
  }
  let runner = opts.wasiRunner;
  const runnerNow = (): WasiRunner => {
    if (runner === undefined && typeof Worker !== "undefined") runner = workerRunner(opts.wasiWorkerURL ?? workerBesideBridge());
    if (!runner) throw new SkillfsError("this host runs no skill modules: it has no Worker and was given no wasiRunner", "PermissionDenied", "execution-not-offered");
    return runner;
  };
  return new Skillfs(directTransport(mod, "admin", listeners, runnerNow));
}

/** Opens database name as it is, without a version, for the module to
 * adopt (vfs.AdoptIndexedDB) when it has the module's schema: the open
 * then overlaps the module's compile. It never rejects: null leaves the
 * open to the module, as for a database that does not exist yet, which
 * this does not create. A schema change asked for by another context
 * before the module adopts it closes it, as the module would. */
function openEarly(name: string): Promise<IDBDatabase | null> {
  return new Promise((resolve) => {
    let req: IDBOpenDBRequest;
    try {
      req = indexedDB.open(name);
    } catch {
      return resolve(null); // no IndexedDB here: the module says so
    }
    req.onupgradeneeded = () => req.transaction?.abort();
    req.onsuccess = () => {
      req.result.onversionchange = () => req.result.close();
      resolve(req.result);
    };
    req.onerror = (e) => {
      e.preventDefault();
      resolve(null);
    };
  });
}

/** How many modules a host runs at once, and how many runs may wait; of
 * these, agents' ports together take at most agentRuns and agentWaiting,
 * so that the host's own pages always have a run and places to wait. */
const maxRuns = 4;
const maxWaitingRuns = 16;
const agentRuns = maxRuns - 1;
const agentWaiting = maxWaitingRuns - 4;

/** A JSON.stringify replacer, for every call's arguments, that refuses NaN
 * and the infinities, which JSON has no words for: it would send null,
 * which means "absent", so a threshold or a timeoutMs of NaN would quietly
 * become the default. */
function finite(key: string, v: unknown): unknown {
  if (typeof v === "number" && !Number.isFinite(v)) {
    throw new SkillfsError(`${key || "a value"} must be a finite number, not ${v}`, "InvalidArgument", "not-finite", key);
  }
  return v;
}

/** session.execute: the module prepares the run, the host's runner runs
 * it, the module records it. The host makes both module calls itself, as
 * admin; an agent reaches this only through a port that offers execution
 * (ServeOptions.execute). */
function executor(mod: ModuleAPI, runner: () => WasiRunner) {
  const runs = { all: 0, agents: 0 };
  // Waiting runs, in order; one whose caller gives up leaves at once.
  const waiting: { agent: boolean; start: () => void }[] = [];
  const fits = (agent: boolean) => runs.all < maxRuns && (!agent || runs.agents < agentRuns);
  const take = (agent: boolean) => {
    runs.all++;
    if (agent) runs.agents++;
  };
  const slot = (agent: boolean, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
    signal?.throwIfAborted();
    if (fits(agent)) {
      take(agent);
      return resolve();
    }
    const mine = agent ? waiting.filter((w) => w.agent).length : 0;
    if (waiting.length >= maxWaitingRuns || mine >= agentWaiting) {
      throw new SkillfsError(`${maxRuns} skill modules are running and ${waiting.length} waiting`, "TooLarge", "busy");
    }
    const w = { agent, start: () => {
      signal?.removeEventListener("abort", giveUp);
      take(agent);
      resolve();
    } };
    const giveUp = () => {
      waiting.splice(waiting.indexOf(w), 1);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", giveUp, { once: true });
    waiting.push(w);
  });
  // The first waiting run that fits starts: an agent's waits while agents
  // hold agentRuns.
  const release = (agent: boolean) => {
    runs.all--;
    if (agent) runs.agents--;
    const i = waiting.findIndex((w) => fits(w.agent));
    if (i >= 0) waiting.splice(i, 1)[0].start();
  };
  return async (args: Args, agent: boolean, signal?: AbortSignal): Promise<unknown> => {
    const json = JSON.stringify(args, finite);
    const r = runner();
    await slot(agent, signal);
    try {
      const [xjson, bytes] = await mod.call("session.execPrepare", "admin", json, undefined, undefined, signal);
      const x = JSON.parse(xjson) as Execution;
      let out: WasiOutcome;
      // The host's runner could not start its Worker: its own error, not
      // the skill's module trapping (which never ran).
      let unavailable: SkillfsError | undefined;
      try {
        out = await r.run(x, bytes ?? new Uint8Array(), signal);
      } catch (e) {
        if (e instanceof WorkerUnavailable) unavailable = new SkillfsError(e.message, "FetchFailed", "worker-unavailable", e.url);
        // Stopped by its caller, or a runner that failed: recorded all the same.
        out = { exit: null, timeout: false, trap: signal?.aborted ? "the caller stopped the run" : String((e as Error)?.message ?? e),
          stdout: new Uint8Array(), stderr: new Uint8Array(), stdoutTruncated: false, stderrTruncated: false, startMs: Date.now(), durationMs: 0 };
      }
      const both = new Uint8Array(out.stdout.length + out.stderr.length);
      both.set(out.stdout);
      both.set(out.stderr, out.stdout.length);
      const finish = mod.call("session.execFinish", "admin", JSON.stringify({
        session: args.session, token: x.token, exit: out.exit, timeout: out.timeout, trap: out.trap,
        stdoutTruncated: out.stdoutTruncated, stderrTruncated: out.stderrTruncated,
        startMs: Math.round(out.startMs), durationMs: out.durationMs, stdoutLength: out.stdout.length,
      }), both);
      signal?.throwIfAborted();
      if (unavailable) {
        // Recorded as the run that failed; the caller is told why.
        await finish.catch(() => {});
        throw unavailable;
      }
      return JSON.parse((await finish)[0]);
    } finally {
      release(agent);
    }
  };
}

/** A call's result as the module encoded it: JSON text ("" for none) and bytes. */
type RawResult = [string, Uint8Array | undefined];

/** What serveSkillfs serves a port with: the module's answers as JSON
 * text, which the port carries as it is, for the other end to parse (see
 * serveSkillfs). */
interface RawTransport {
  raw(method: string, args: Args, bytes?: Uint8Array, onProgress?: (p: unknown) => void, signal?: AbortSignal): Promise<RawResult>;
}

/** The value of a result's JSON text ("": none). */
const parsed = (json: string): unknown => (json === "" ? undefined : JSON.parse(json));

function directTransport(mod: ModuleAPI, capability: Capability, listeners: Set<(c: Change) => void>, runner: () => WasiRunner): Transport & { capability(c: Capability): Transport & RawTransport } {
  const execute = executor(mod, runner);
  const make = (cap: Capability): Transport & RawTransport => {
    const raw = (method: string, args: Args, bytes?: Uint8Array, onProgress?: (p: unknown) => void, signal?: AbortSignal): Promise<RawResult> => {
      signal?.throwIfAborted();
      const settled = (async (): Promise<RawResult> => {
        try {
          if (method === "session.execute") {
            if (cap === "none") throw new SkillfsError("this port may not call skillfs", "PermissionDenied", "", method);
            return [JSON.stringify(await execute(args, cap === "agent", signal)), undefined];
          }
          const [json, out] = await mod.call(method, cap, JSON.stringify(args, finite), bytes, onProgress, signal);
          return [json, out ?? undefined];
        } catch (e) {
          throw toSkillfsError(e);
        }
      })();
      return abortable(settled, signal);
    };
    return {
      raw,
      async call(method, args, bytes, onProgress, signal) {
        const [json, out] = await raw(method, args, bytes, onProgress, signal);
        try {
          return [parsed(json), out];
        } catch (e) {
          throw toSkillfsError(e);
        }
      },
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
  };
  return { ...make(capability), capability: make };
}

/** skillfs.wasm beside this module, written the way Vite and webpack
 * recognise to copy the file; a classic script or IIFE bundle (an MV3
 * service worker, a content script) has no import.meta and must say. */
function besideBridge(): URL {
  if (!import.meta.url) throw new SkillfsError("wasmURL is needed where the bridge is not loaded as an ES module", "InvalidArgument");
  return new URL("./skillfs.wasm", import.meta.url);
}

/** wasi-worker.js beside this module, as besideBridge. */
function workerBesideBridge(): URL {
  if (!import.meta.url) throw new SkillfsError("wasiWorkerURL is needed where the bridge is not loaded as an ES module", "InvalidArgument");
  return new URL("./wasi-worker.js", import.meta.url);
}

/** Go's runtime, as a function that loads it: globalThis.Go, or
 * wasm_exec.js from wasmExecURL. Without either this throws at once, so
 * that loadSkillfs starts nothing for a start that cannot happen; the load
 * starts when the function is called, after the module's fetch has (a
 * classic worker's importScripts blocks until it is done). */
function goRuntime(wasmExecURL?: string | URL): () => Promise<GoConstructor> {
  const g = globalThis as { Go?: GoConstructor; importScripts?: (u: string) => void; document?: Document };
  if (g.Go) {
    const Go = g.Go;
    return async () => Go;
  }
  if (!wasmExecURL) throw new SkillfsError("wasm_exec.js is not loaded: pass wasmExecURL or load it first", "InvalidArgument");
  const url = String(wasmExecURL);
  return async () => {
    if (g.document) {
      await new Promise<void>((resolve, reject) => {
        const s = g.document!.createElement("script");
        s.src = url;
        s.onload = () => resolve();
        s.onerror = () => reject(new SkillfsError(`cannot load ${url}`, "Internal"));
        g.document!.head.append(s);
      });
    } else {
      try {
        // A classic worker (an MV3 service worker) loads it synchronously;
        // a module worker has importScripts but throws, and imports instead.
        if (!g.importScripts) throw new TypeError("no importScripts");
        g.importScripts(url);
      } catch {
        await import(/* @vite-ignore */ url);
      }
    }
    if (!g.Go) throw new SkillfsError(`${url} did not define Go`, "Internal");
    return g.Go;
  };
}

async function compile(url: string | URL, signal: AbortSignal): Promise<WebAssembly.Module> {
  const res = await fetch(url, { signal });
  if (!res.ok) throw new SkillfsError(`cannot fetch ${url}: HTTP ${res.status}`, "Internal");
  // compileStreaming needs the application/wasm type; a file server that
  // gets it wrong still works, a little slower.
  if (res.headers.get("content-type")?.startsWith("application/wasm")) return WebAssembly.compileStreaming(res);
  return WebAssembly.compile(await res.arrayBuffer());
}

// A listener that throws is its owner's bug: report it, and keep the
// other listeners and the call that notified them going.
function notifyAll<T>(listeners: Iterable<(v: T) => void>, v: T): void {
  for (const l of listeners) {
    try {
      l(v);
    } catch (e) {
      (globalThis.reportError ?? console.error)(e);
    }
  }
}

function toSkillfsError(e: unknown): SkillfsError {
  if (e instanceof SkillfsError) return e;
  const o = (e ?? {}) as { message?: string; code?: ErrorCode; reason?: string; subject?: string; diagnostics?: Diagnostic[]; invalid?: SkillError[]; msg?: string };
  return new SkillfsError(o.message ?? String(e), o.code ?? "Internal", o.reason ?? "", o.subject ?? "", o.diagnostics ?? [], o.invalid ?? [], o.msg);
}

/** p, or signal's reason as soon as signal aborts (p is left to settle
 * unobserved). */
function abortable<T>(p: Promise<T>, signal?: AbortSignal, onAbort?: () => void): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort?.();
      reject(signal.reason);
    };
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

// ---- Port transport: a host runs the module, a content script calls it. ----

/** A chrome.runtime.Port or a MessagePort. */
export type AnyPort = ChromePort | MessagePort;

/** The part of chrome.runtime.Port the bridge uses. */
export interface ChromePort {
  postMessage(message: unknown): void;
  onMessage: { addListener(fn: (message: unknown) => void): void };
  onDisconnect: { addListener(fn: () => void): void };
  disconnect(): void;
}

type Wire =
  | { t: "call"; id: number; method: string; args: Args; bytes?: WireBytes; progress: boolean }
  | { t: "cancel"; id: number }
  | { t: "progress"; id: number; value: unknown }
  | { t: "result"; id: number; json: string; bytes?: WireBytes }
  | { t: "error"; id: number; message: string; code: ErrorCode; reason: string; subject: string; diagnostics: Diagnostic[]; invalid?: SkillError[]; msg?: string }
  | { t: "change"; change: Change }
  | { t: "ping" }
  | { t: "pong" }
  | { t: "bye" };

// A chrome.runtime.Port sends JSON, which cannot carry a Uint8Array; a
// MessagePort clones it as it is.
type WireBytes = Uint8Array | { b64: string };

interface Link {
  send(m: Wire): void;
  listen(fn: (m: Wire) => void): void;
  onClose(fn: () => void): void;
  json: boolean;
}

function link(port: AnyPort): Link {
  if ("onMessage" in port) {
    return {
      send: (m) => {
        try {
          port.postMessage(m);
        } catch {
          // Disconnected: nobody is listening any more.
        }
      },
      listen: (fn) => port.onMessage.addListener((m) => fn(m as Wire)),
      onClose: (fn) => port.onDisconnect.addListener(fn),
      json: true,
    };
  }
  port.start();
  return {
    send: (m) => port.postMessage(m),
    listen: (fn) => port.addEventListener("message", (e) => fn(e.data as Wire)),
    // Fired when the other end is closed or its context goes away, where
    // the browser has MessagePort close events (Chromium 156 only behind
    // --enable-blink-features=MessagePortCloseEvent). Elsewhere a
    // MessagePort never tells: serveSkillfs's stop() is what ends it.
    onClose: (fn) => port.addEventListener("close", fn),
    json: false,
  };
}

/** The platform's base64 of bytes, where the browser has it (Chromium
 * 156, which the tests run, does): 7 MB in ~6 ms there, against ~280 ms
 * through btoa, one task of the page that sends an import over a
 * chrome.runtime.Port. */
function packBytes(l: Link, b?: Uint8Array): WireBytes | undefined {
  if (!b) return undefined;
  return l.json ? { b64: toBase64(b) } : b;
}

// What crossed a port is not trusted: anything but bytes, or {b64} with a
// base64 string, is an InvalidArgument.
function unpackBytes(w: unknown, method: string): Uint8Array | undefined {
  const b64 = (w as { b64?: unknown } | null)?.b64;
  if (typeof b64 !== "string") return asBytes(w, method);
  try {
    return fromBase64(b64);
  } catch {
    throw new SkillfsError("the bytes are not valid base64", "InvalidArgument", "", method);
  }
}

/** v as a Uint8Array: an ArrayBuffer or any view of one is wrapped, not
 * copied; undefined and null are none. */
function asBytes(v: unknown, method: string): Uint8Array | undefined {
  if (v === undefined || v === null || v instanceof Uint8Array) return v ?? undefined;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  throw new SkillfsError("the bytes must be a Uint8Array, an ArrayBuffer or another ArrayBuffer view", "InvalidArgument", "", method);
}

export interface ConnectOptions {
  /** How long the host may stay silent while calls are pending before they
   * fail with code Internal, reason "host-gone": a MessagePort says nothing
   * when the other end goes away. 5 s by default; the host answers pings
   * whenever its event loop runs. */
  livenessMs?: number;
}

/** Gives the same API as loadSkillfs over a port to a host that serves it. */
export function connectSkillfs(port: AnyPort, opts: ConnectOptions = {}): Skillfs {
  const l = link(port);
  const livenessMs = opts.livenessMs ?? 5000;
  let next = 0;
  let lastHeard = Date.now();
  let watchdog: ReturnType<typeof setInterval> | undefined;
  const pending = new Map<number, { method: string; resolve: (v: [unknown, Uint8Array | undefined]) => void; reject: (e: SkillfsError) => void; progress?: (p: unknown) => void }>();
  const listeners = new Set<(c: Change) => void>();
  // Why the host is gone for good: it said goodbye, or the port closed.
  let gone = "";
  const failAll = (message: string, reason: string) => {
    for (const p of pending.values()) p.reject(new SkillfsError(message, "Internal", reason));
    pending.clear();
    clearInterval(watchdog);
    watchdog = undefined;
  };
  l.listen((m) => {
    lastHeard = Date.now();
    if (m.t === "change") {
      notifyAll(listeners, m.change);
      return;
    }
    if (m.t === "bye") {
      failAll((gone = "the skillfs host stopped serving this port"), "host-gone");
      return;
    }
    if (m.t !== "progress" && m.t !== "result" && m.t !== "error") return;
    const p = pending.get(m.id);
    if (!p) return;
    if (m.t === "progress") {
      if (p.progress) notifyAll([p.progress], m.value);
      return;
    }
    pending.delete(m.id);
    if (m.t !== "result") {
      p.reject(new SkillfsError(m.message, m.code, m.reason, m.subject, m.diagnostics, m.invalid ?? [], m.msg));
      return;
    }
    let value: unknown;
    try {
      // Not JSON text: a host of another build (one that sent the value
      // itself), or a broken one.
      if (typeof m.json !== "string") throw new Error("it carries no JSON text");
      value = parsed(m.json);
    } catch (e) {
      p.reject(new SkillfsError(`the skillfs host's answer is not a result: ${(e as Error).message}`, "Internal", "bad-answer", p.method));
      return;
    }
    try {
      p.resolve([value, unpackBytes(m.bytes, "")]);
    } catch (e) {
      p.reject(toSkillfsError(e));
    }
  });
  l.onClose(() => failAll((gone = "the skillfs host disconnected"), "host-gone"));
  // While calls are pending, ping the host: a ping still unanswered
  // livenessMs after it was sent means the host is gone. A tick that comes
  // late (a busy or throttled page) pings again rather than judging a host
  // it did not ask.
  const every = Math.max(50, livenessMs / 4);
  const watch = () => {
    if (watchdog !== undefined) return;
    let pingAt = 0; // when the unanswered ping went out; 0: none
    let lastTick = Date.now();
    watchdog = setInterval(() => {
      const now = Date.now();
      const late = now - lastTick > 2 * every;
      lastTick = now;
      if (lastHeard >= pingAt) pingAt = 0;
      if (pending.size === 0) {
        clearInterval(watchdog);
        watchdog = undefined;
      } else if (pingAt === 0 || late) {
        pingAt = now;
        l.send({ t: "ping" });
      } else if (now - pingAt > livenessMs) {
        failAll(`the skillfs host did not answer for ${livenessMs} ms`, "host-gone");
      }
    }, every);
  };
  return new Skillfs({
    call(method, args, bytes, onProgress, signal) {
      const id = ++next;
      signal?.throwIfAborted();
      const p = new Promise<[unknown, Uint8Array | undefined]>((resolve, reject) => {
        if (gone) throw new SkillfsError(gone, "Internal", "host-gone");
        pending.set(id, { method, resolve, reject, progress: onProgress });
        l.send({ t: "call", id, method, args, bytes: packBytes(l, bytes), progress: !!onProgress });
        watch();
      });
      // The host aborts its side of the call; its answer, if one still
      // comes, finds nothing pending.
      return abortable(p, signal, () => {
        if (pending.delete(id)) l.send({ t: "cancel", id });
      });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
}

export interface ServeOptions {
  /** What the other end may do, decided by the host from the sender (an
   * extension page: "admin"; a content script: "agent"; anything else:
   * "none"), never by the caller. */
  capability: Capability;
  /** How many sessions the other end may hold open; opening one more
   * closes its oldest. 8 by default. */
  maxSessions?: number;
  /** The host's rule for whose contexts these are, such as the sender's
   * origin: whatever contextId the other end names, its sessions serve
   * `${contextScope} ${contextId}`, so an agent in one site can never
   * pin into, or read the pins of, another's. */
  contextScope?: string;
  /** Whether an agent's port may run skills' modules (session.execute):
   * the host's choice, false by default. Extension pages may. */
  execute?: boolean;
}

/** What one agent call may carry, checked by the host before anything
 * else (the module checks again): the limits of pkg/callargs.Agent. */
const agentLimits = { bytes: 256 << 10, list: 1000, string: 16 << 10, depth: 8 };
/** An agent port's calls wait in a queue of at most this many and run at
 * most agentInFlight at a time, one started per turn of the event loop,
 * so that no flood of agent calls delays another port's call. */
const agentQueue = 64;
const agentInFlight = 4;

function tooLarge(message: string, method: string): SkillfsError {
  return new SkillfsError(message, "TooLarge", "limit", method);
}

/** Refuses an agent's call beyond agentLimits, in time linear in what it
 * reads and never more than the limits: a huge message is refused
 * without being walked, let alone serialised. Strings are counted in
 * UTF-8 bytes, as the module counts them (utf8Length). */
function checkAgentCall(method: unknown, args: unknown, bytes: unknown): void {
  const name = typeof method === "string" ? method.slice(0, 64) : "";
  if (typeof method !== "string" || method.length > 64) throw new SkillfsError("the method must be a short string", "InvalidArgument", "", name);
  // No agent method takes bytes, and the module refuses them; the host
  // only keeps large ones from being decoded and copied at all.
  const w = bytes as { b64?: unknown; byteLength?: unknown } | null | undefined;
  const size = typeof w?.b64 === "string" ? w.b64.length : typeof w?.byteLength === "number" ? w.byteLength : 0;
  if (size > agentLimits.bytes) throw tooLarge(`the bytes are larger than ${agentLimits.bytes}`, name);
  if (args === undefined || args === null) return;
  if (typeof args !== "object" || Array.isArray(args)) throw new SkillfsError("the arguments must be an object", "InvalidArgument", "", name);
  let budget = agentLimits.bytes;
  const walk = (v: unknown, depth: number): void => {
    if (depth > agentLimits.depth) throw tooLarge(`the arguments nest more than ${agentLimits.depth} levels deep`, name);
    if (typeof v === "string") {
      const n = utf8Length(v);
      if (n > agentLimits.string) throw tooLarge(`a string is longer than ${agentLimits.string} bytes`, name);
      // As the module counts the call: its JSON text, escapes and all.
      budget -= utf8Length(JSON.stringify(v)) + 1;
    } else if (Array.isArray(v)) {
      if (v.length > agentLimits.list) throw tooLarge(`a list has more than ${agentLimits.list} items`, name);
      budget -= 2;
      for (const x of v) walk(x, depth + 1);
    } else if (v !== null && typeof v === "object") {
      budget -= 2;
      for (const k in v) {
        const n = utf8Length(k);
        if (n > agentLimits.string) throw tooLarge(`a key is longer than ${agentLimits.string} bytes`, name);
        budget -= utf8Length(JSON.stringify(k)) + 2;
        walk((v as Record<string, unknown>)[k], depth + 1);
        if (budget < 0) break;
      }
    } else {
      budget -= String(v).length + 1;
    }
    if (budget < 0) throw tooLarge(`the arguments are larger than ${agentLimits.bytes} bytes`, name);
  };
  walk(args, 1);
}

/** Runs fn in a task of its own, after the messages already waiting:
 * through a MessageChannel where there is one (setTimeout is clamped to
 * 4 ms when nested), made on first use and unref'd where that exists
 * (Node), so that loading the bridge keeps no process alive. */
let taskChannel: MessageChannel | undefined;
const taskQueue: (() => void)[] = [];
function nextTask(fn: () => void): void {
  if (typeof MessageChannel === "undefined") {
    setTimeout(fn, 0);
    return;
  }
  if (!taskChannel) {
    taskChannel = new MessageChannel();
    taskChannel.port1.onmessage = () => taskQueue.shift()?.();
    (taskChannel.port1 as { unref?: () => void }).unref?.();
  }
  taskQueue.push(fn);
  taskChannel.port2.postMessage(null);
}

/** Serves sk (loaded with loadSkillfs) to the other end of port. The
 * returned function stops serving and tells the other end.
 *
 * The other end reaches only the sessions it opened itself, at most
 * opts.maxSessions of them, and they are closed when the port
 * disconnects or serving stops. */
export function serveSkillfs(sk: Skillfs, port: AnyPort, opts: ServeOptions): () => void {
  const l = link(port);
  const t = (sk as unknown as { transport: Transport & { capability?(c: Capability): Transport & RawTransport } }).transport;
  if (!t.capability) throw new SkillfsError("serveSkillfs needs a skillfs loaded in this context", "InvalidArgument");
  const scoped = t.capability(opts.capability);
  // A port that may call nothing is left to the module, which refuses.
  let shared: Set<string> | undefined;
  if (opts.capability === "agent") {
    shared = agentSessions.get(t) ?? new Set();
    agentSessions.set(t, shared);
  }
  const sessions = opts.capability === "admin" || opts.capability === "agent"
    ? portSessions(scoped, opts.maxSessions ?? 8, shared, opts.contextScope)
    : { raw: scoped.raw, closeAll() {} };
  const agent = opts.capability === "agent";
  let serving = true;
  const calls = new Map<unknown, AbortController>();
  // An agent's calls wait their turn (see agentQueue); others run at once.
  const queue: (() => Promise<unknown>)[] = [];
  let running = 0;
  let scheduled = false;
  const pump = () => {
    scheduled = false;
    if (!serving || running >= agentInFlight) return;
    const job = queue.shift();
    if (!job) return;
    running++;
    void job().finally(() => {
      running--;
      schedule();
    });
    schedule();
  };
  const schedule = () => {
    if (!scheduled && queue.length > 0 && running < agentInFlight) {
      scheduled = true;
      nextTask(pump);
    }
  };
  l.listen((m) => {
    if (!serving) return;
    if (m.t === "ping") {
      l.send({ t: "pong" });
      return;
    }
    if (m.t === "cancel") {
      calls.get(m.id)?.abort();
      return;
    }
    if (m.t !== "call") return;
    const id = m.id;
    const fail = (e: unknown) => {
      const err = toSkillfsError(e);
      l.send({ t: "error", id, message: err.detail, code: err.code, reason: err.reason, subject: err.subject, diagnostics: err.diagnostics, invalid: err.invalid, msg: err.msg });
    };
    const progress = m.progress ? (value: unknown) => l.send({ t: "progress", id, value }) : undefined;
    // The caller may cancel the call by its id; a repeated id cancels the first.
    const ctl = new AbortController();
    const mine = !calls.has(id);
    if (mine) calls.set(id, ctl);
    // The answer goes as the module's JSON text: the host neither parses
    // nor clones the value (a list of thousands of skills is megabytes),
    // the other end parses it on its own thread.
    const run = () => Promise.resolve()
      .then(() => sessions.raw(String(m.method), m.args ?? {}, unpackBytes(m.bytes, String(m.method)), progress, ctl.signal))
      .finally(() => {
        if (mine) calls.delete(id);
      })
      .then(([json, bytes]) => l.send({ t: "result", id, json, bytes: packBytes(l, bytes) }), fail);
    if (!agent) {
      void run();
      return;
    }
    try {
      checkAgentCall(m.method, m.args, m.bytes);
      if (m.method === "session.execute" && !opts.execute) {
        throw new SkillfsError("this host does not let agents run skills' modules", "PermissionDenied", "execution-not-offered", "session.execute");
      }
      if (queue.length >= agentQueue) throw new SkillfsError(`more than ${agentQueue} calls of this port are waiting`, "TooLarge", "busy", String(m.method));
    } catch (e) {
      if (mine) calls.delete(id);
      fail(e);
      return;
    }
    queue.push(run);
    schedule();
  });
  const unsubscribe = opts.capability === "none" ? () => {} : sk.onChange((change) =>
    // An agent learns that something changed, not which skills: disabled
    // ones stay invisible to it.
    l.send({ t: "change", change: opts.capability === "agent" ? { ...change, ids: [] } : change }));
  const end = () => {
    if (!serving) return false;
    serving = false;
    for (const c of calls.values()) c.abort();
    calls.clear();
    unsubscribe();
    sessions.closeAll();
    return true;
  };
  l.onClose(end);
  return () => {
    if (end()) l.send({ t: "bye" });
  };
}

/** Sessions that agent ports opened in one skillfs, oldest first, across
 * all its ports: they share the module's pool of sessions with the
 * extension's own pages, so together they may hold at most
 * maxAgentSessions; a port makes room only by closing its own, and is
 * refused when the others fill the pool. */
const agentSessions = new WeakMap<Transport, Set<string>>();
const maxAgentSessions = 32;

/** The calls of one served port: session calls only on the sessions it
 * opened, at most max of them open at a time; shared holds all agent
 * ports' sessions when this port is one. */
function portSessions(t: Transport & RawTransport, max: number, shared?: Set<string>, scope?: string) {
  const open: string[] = []; // the port's sessions, oldest first
  let opening: Promise<unknown> = Promise.resolve(); // opens run one at a time
  let closed = false;
  const forget = (id: string) => {
    if (open.includes(id)) open.splice(open.indexOf(id), 1);
    shared?.delete(id);
  };
  const close = (id: string) => {
    forget(id);
    return t.call("session.close", { session: id }).catch(() => {});
  };
  return {
    raw(method: string, args: Args, bytes?: Uint8Array, onProgress?: (p: unknown) => void, signal?: AbortSignal): Promise<RawResult> {
      if (method === "resolver.openSession") {
        if (scope !== undefined && typeof args.contextId === "string") args = { ...args, contextId: `${scope} ${args.contextId}` };
        const res = opening.then(async () => {
          while (open.length >= max) await close(open[0]);
          // The pool is shared: make room only among this port's own
          // sessions, and refuse when the others fill it.
          if (shared && shared.size >= maxAgentSessions) {
            throw new SkillfsError(`the ${maxAgentSessions} sessions agents may hold are open; close one of yours first`, "TooLarge", "session-pool-full", method);
          }
          const r = await t.raw(method, args, bytes, onProgress, signal);
          const id = (parsed(r[0]) as { session?: unknown } | undefined)?.session;
          if (typeof id === "string") {
            if (closed) {
              await close(id);
            } else {
              open.push(id);
              shared?.add(id);
            }
          }
          return r;
        });
        opening = res.catch(() => {});
        return res;
      }
      if (method.startsWith("session.")) {
        const id = String(args.session);
        if (!open.includes(id)) {
          // As the module answers for a session that does not exist: the
          // port learns nothing of the others'.
          return Promise.reject(new SkillfsError(`${id}: no open session of this port has this id`, "InvalidArgument", "no-session", id));
        }
        // The module takes "session" under this spelling only, and
        // refuses a call with any other (see pkg/callargs).
        args = { ...args, session: id };
        // A session is forgotten once the module has closed it, never
        // on a close it refused: it would still hold a place in the pool.
        if (method === "session.close") return t.raw(method, args, bytes, onProgress).then((r) => (forget(id), r));
      }
      return t.raw(method, args, bytes, onProgress, signal);
    },
    closeAll() {
      closed = true;
      void opening.then(() => Promise.all(open.slice().map((id) => close(id))));
    },
  };
}
