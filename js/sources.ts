// js/sources.ts: the host's half of installing skills from where they are
// published — a discovery index, an MCP server, a URL. It fetches (see
// fetch.ts, mcp.ts) and hands the module bytes; the module (pkg/source)
// parses, resolves, checks containment and verifies every digest before
// the registry installs anything, in one commit per skill.

import { groupBy } from "./group.js";
import { SkillfsError, skillErrorLabel, type ConflictPolicy, type ErrorCode, type ImportPreview, type ImportProgress, type ImportResult, type SkillMeta } from "./bridge.js";
import { DEFAULT_MAX_BYTES, MAX_INDEX_BYTES, concat, fetchArtifact, fetchBytes, sizeText, type Fetched, type FetchOptions } from "./fetch.js";

export type { FetchOptions } from "./fetch.js";

/** Where an installed skill came from (SkillMeta.origin), and the digest
 * it was verified against. */
export interface Origin {
  kind: "index" | "mcp" | "url";
  /** The discovery index's URL and the entry's name. */
  index?: string;
  entry?: string;
  /** The MCP server's URL and the skill's skill://…/SKILL.md URI. */
  server?: string;
  uri?: string;
  /** The artifact fetched. */
  url?: string;
  /** For a skill of an archive (a repository's download) that is not the
   * whole of it, its folder there, below the folder all the archive's
   * skills share ("skills/pdf"): an update takes that folder of the new
   * download. */
  dir?: string;
  type: "skill-md" | "archive" | "files" | "";
  digest: string;
  /** The ETag a plain URL's server sent with the artifact, if any: an
   * update check asks with it and downloads nothing when told 304. */
  etag?: string;
  /** false when the source published no digest (a v0.1.0 index, a URL
   * given without one): digest is then what was received. */
  verified: boolean;
  /** The skill's own digest (SkillMeta.digest) as installed from the
   * source: one edited here since has another. */
  filesDigest?: string;
}

/** An entry or skill left out of an install, and why. */
export interface Refusal {
  name: string;
  code: ErrorCode;
  reason: string;
  message: string;
  /** Of a skill refused because a skill it depends on is neither
   * installed nor installed by this request (reason "unknown-skill"):
   * that skill's id, to install first (SkillError.needs). */
  needs?: string;
  /** The id of the skill refused, as a dependency on it names it (needs),
   * when it differs from name or is unknown: its SKILL.md's name once
   * read (a skill of a download, an update of one skill), or, of the
   * skill at a download's root whose name cannot be read, the name the
   * source lists it by; "" for one in a folder of its own whose name
   * cannot be read, which name calls by its folder. Absent, name is what
   * the source lists it by (an index entry, an MCP skill, refused whole),
   * which a dependency names too. The refusal of what another skill needs
   * is found by this, not by name. */
  id?: string;
}

export interface InstallReport {
  /** The skills installed, each in its own commit. */
  installed: SkillMeta[];
  /** What was refused (a wrong digest, too large, an escaping path, an
   * invalid archive): nothing of it was stored. */
  refused: Refusal[];
  /** What was skipped or installed with a caveat: an unknown entry type,
   * a v0.1.0 index without digests. */
  warnings: Refusal[];
}

export interface InstallOptions extends FetchOptions {
  onConflict?: ConflictPolicy;
  /** The progress of each commit, in turn (an index's entries, a
   * server's skills, each in its own): prepare, commit, done, counting
   * the files it writes. A download installed again in a batch, once what
   * it waited for installed, counts only the skills it installs then:
   * no skill's files are counted twice. */
  onProgress?: (p: ImportProgress) => void;
}

/** What the archive or SKILL.md at a URL holds, against the installed
 * skills (as previewZip says of an archive), for a person to review before
 * installFromPreview installs exactly these bytes. */
export interface UrlPreview extends ImportPreview {
  url: string;
  /** What each skill installed from it records (SkillMeta.origin): the
   * digest of these bytes (the one given, verified), their type, their ETag. */
  origin: Origin;
  /** The bytes downloaded, kept here so that the install downloads nothing
   * again: what is installed is what was previewed. */
  bytes: Uint8Array;
  /** "unverified" when no digest was given. */
  warnings: Refusal[];
}

/** The choice a person made after previewFromUrl (ImportOptions.choose):
 * only the skills named are installed, each kept beside ("rename") or
 * updating ("replace") an installed one of its name. */
export interface PreviewInstallOptions extends Pick<InstallOptions, "onConflict" | "onProgress" | "signal"> {
  /** Without it, every skill that can be installed is, under onConflict. */
  choose?: Record<string, "rename" | "replace">;
}

/** A skill a discovery index offers, for a person to review, against
 * the installed skills (as McpOffer): new; the one installed from this
 * entry, verified against the digest it publishes now (installed); the
 * one installed from it, in another version now or with no digest to tell
 * (update: installing it updates that one in place); or of the name of
 * one installed from elsewhere (conflict: it installs beside it).
 * installed is the id of that one; edited, whether a skill installed
 * from this entry was changed here since it was installed, so that
 * installing the entry again replaces those changes. */
export interface IndexEntry {
  name: string;
  type: "skill-md" | "archive" | "files";
  description: string;
  url: string;
  digest: string;
  status: "new" | "installed" | "update" | "conflict";
  installed: string;
  edited: boolean;
}

export interface IndexPreview {
  url: string;
  version: "0.2.0" | "0.1.0";
  entries: IndexEntry[];
  /** Entries left out, with a warning each. */
  skipped: Refusal[];
  /** The index as downloaded, and its digest, kept so that installing
   * from this preview reads the index reviewed, not the one the site
   * serves by then (installFromIndex). */
  bytes: Uint8Array;
  digest: string;
}

/** A skill an MCP server offers, against the installed skills: new; the
 * one installed from it, byte for byte (installed); a newer version of the
 * one installed from it (update); or of the name of one installed from
 * elsewhere (conflict). installed is the id of that one. */
export interface McpOffer {
  name: string;
  description: string;
  uri: string;
  digest: string;
  status: "new" | "installed" | "update" | "conflict";
  installed: string;
  /** How many files the server lists for it. */
  fileCount: number;
  /** Whether the skill installed from it was changed here since it was
   * installed (as IndexEntry's). */
  edited: boolean;
}

export interface McpPreview {
  server: string;
  skills: McpOffer[];
  /** Skills whose listing cannot be installed (an escaping path, no
   * digest), each with why. */
  skipped: Refusal[];
  /** The listing as received, and its digest, kept so that installing from
   * this preview installs the skills reviewed (installFromMcp). */
  listing: Uint8Array;
  digest: string;
}

/** What to install from an MCP server, decided against the skills
 * installed when the install runs: the skills named (by name or URI, each
 * once however often named; all when neither skills nor choose is given),
 * and a person's choice after
 * previewMcp (as installFromPreview's): without skills, only the skills
 * chosen are installed, each kept beside ("rename") or replacing
 * ("replace") an installed one of its name — the one installed from this
 * server, in place, whatever its id. A skill not chosen is installed under
 * onConflict, but an update replaces the skill installed from the server,
 * as update() would, and a skill installed already, byte for byte, is left
 * as it is (a warning says so). A choice of a skill that skills leaves out,
 * or other than "rename" and "replace", installs nothing (InvalidArgument). */
export interface McpInstallOptions extends InstallOptions {
  skills?: string[];
  choose?: Record<string, "rename" | "replace">;
}

export interface UpdateInfo {
  id: string;
  /** current: the source publishes what is installed; changed: something
   * else (latest); gone: no longer; unknown: it publishes no digest;
   * error: it could not be asked, or what it publishes now could not be
   * installed by an update (a SKILL.md broken, a dependency not
   * installed): code, reason and message say why. */
  status: "current" | "changed" | "gone" | "unknown" | "error";
  installed: string;
  latest: string;
  origin: Origin;
  code?: ErrorCode;
  reason?: string;
  message?: string;
  /** Of "changed": the skills of the same download (a repository's) that
   * the version published now depends on and that are not installed: the
   * update installs them with it, in its commit, as an import of the
   * download choosing them would. An index's check downloads nothing and
   * names none, though the update of an entry's archive installs them
   * alike (UpdateResult.installed). */
  needs?: string[];
}

export interface UpdateResult {
  /** "current": nothing was downloaded or changed. */
  status: "updated" | "current";
  skill: SkillMeta;
  /** The skills installed with it, which its new version depends on
   * (UpdateInfo.needs), if any. */
  installed?: SkillMeta[];
}

/** What updateMany did to one skill: updated, found current, or not
 * updated (error: code, reason and message say why, as update's
 * refusal would; nothing of it changed). */
export interface UpdateOutcome {
  id: string;
  status: "updated" | "current" | "error";
  skill?: SkillMeta;
  /** As UpdateResult's. */
  installed?: SkillMeta[];
  code?: ErrorCode;
  reason?: string;
  message?: string;
}

/** Of an update from an index: the names of its other entries
 * (registry.ImportOptions.Elsewhere), which its refusal for needing one
 * of them says to install first. */
interface Elsewhere { elsewhere?: string[] }

type Call = (method: string, args: Record<string, unknown>, bytes?: Uint8Array, onProgress?: (p: unknown) => void, signal?: AbortSignal) => Promise<[unknown, Uint8Array | undefined]>;

interface FileRef { path: string; url: string; digest: string; size: number }
/** target: the skill installed from the entry that installing it updates
 * in place; left, of one installed, the warning that it is left as it is;
 * unverified, of one without a digest, the warning that what is received
 * cannot be verified (source.ReviewIndex). */
interface EntryPlan extends IndexEntry { files: FileRef[]; origin: Origin; target: string; left?: Refusal; unverified?: Refusal }
/** A skill to install from an MCP server, and how (source.ChooseMCP). */
interface McpPlan { name: string; description: string; uri: string; files: FileRef[]; digest: string; origin: Origin; onConflict: ConflictPolicy; target: string }
/** unusable: of the names asked, those the index lists but skipped, each
 * with the refusal of an update from it (source.Index.Unusable). */
interface IndexPlan { url: string; version: IndexPreview["version"]; entries: EntryPlan[]; skipped: Refusal[]; refused: Refusal[]; unusable: Refusal[]; digest: string; names: string[] }
/** An install's import, with the warning of each skill it left as it is,
 * installed from the source already byte for byte (the module's
 * source.AlreadyInstalled). */
type SourceImport = ImportResult & { already: Refusal[] };
/** A download ready to install (run), and its size in bytes. */
interface Install { run: () => Promise<SourceImport>; bytes: number }
/** A skill of a batch install, by name, and its download. */
type Download = [name: string, download: () => Promise<Install>];
/** A download of a batch to install, or installed again: then only its
 * skills named in only, which waited, and refused, their last refusals.
 * Waiting: install, what download gave unless it waits without its
 * bytes; missing, the ids it waits for that have not installed; and
 * whether one of those it waited for has. */
interface Waiter {
  name: string;
  download: () => Promise<Install>;
  install?: Install;
  only?: Set<string>;
  refused: Refusal[];
  missing?: Set<string>;
  progressed?: boolean;
}
interface McpListPlan { skills: McpPlan[]; skipped: Refusal[]; refused: Refusal[]; warnings: Refusal[] }

const refusalOf = (name: string, e: unknown): Refusal => {
  const err = e instanceof SkillfsError ? e : new SkillfsError(String((e as Error)?.message ?? e), "Internal");
  // The message for a person, without the code (as the module's refusals):
  // the code is beside it. Of one skill's refusal (an update in place),
  // that skill.
  const one = err.invalid.length === 1 ? err.invalid[0]!.name : "";
  const r: Refusal = { name, code: err.code, reason: err.reason, message: err.detail, ...(one && one !== name ? { id: one } : {}) };
  // The module's unknown-skill error names the missing skill: in its
  // skill's SkillError (needs), else as its subject.
  const needs = err.invalid[0]?.needs ?? (err.reason === "unknown-skill" ? err.subject : "");
  if (needs) r.needs = needs;
  return r;
};

/** The skills of an install's archive that could not be installed, as
 * refusals, each called as skillErrorLabel says (name, the entry's, for
 * its root), with its id when that is known (Refusal.id). */
const refusalsOf = (res: ImportResult, name: string): Refusal[] =>
  res.invalid.map((e) => {
    const label = skillErrorLabel(e, name);
    const id = e.name || (e.subject === "." ? name : "");
    return { name: label, code: e.code, reason: e.reason, message: e.message, ...(e.needs ? { needs: e.needs } : {}), ...(id !== label ? { id } : {}) };
  });

/** The arguments of an import's choice (choose), and, after preview,
 * what it is given to check that each skill chosen is still compared with
 * the installed skill preview showed (ImportOptions.preview): the digest
 * of that one by name, "" for none. Not part of the package's API. */
export const choiceArgs = (choose?: Record<string, "rename" | "replace">, preview?: ImportPreview) =>
  !choose ? {} : {
    choose,
    ...(preview
      ? { compared: Object.fromEntries(preview.skills.filter((s) => s.status !== "invalid" && Object.hasOwn(choose, s.name)).map((s) => [s.name, s.installedDigest ?? ""])) }
      : {}),
  };

/** How many sources an update check asks at once: enough that a slow
 * one does not hold up the others, few enough not to flood the browser's
 * connections (six per host) or the module with downloads to compare. */
export const CHECK_SOURCES = 4;

/** The refusal of an update of m whose source no longer publishes it
 * (SkillNotFound, "gone"): where it was, and that the skill stays. */
const goneError = (m: SkillMeta): SkillfsError => {
  const o = m.origin!;
  const where = o.kind === "index" ? `the index no longer lists its entry '${o.entry}'`
    : o.kind === "mcp" ? "the MCP server no longer lists it"
    : o.dir ? `the download at its address no longer holds it (in ${o.dir}/ or elsewhere)` : "its address no longer has it";
  return new SkillfsError(`${where}: it stays installed as it is, and can be deleted if it is no longer wanted`, "SkillNotFound", "gone", m.id);
};

/** Errors that end a whole call rather than one entry's install. */
const fatal = (e: unknown) =>
  e instanceof SkillfsError ? e.code === "PermissionDenied" || e.reason === "aborted" : (e as Error)?.name === "AbortError";

/** The origin skill m records once updated from a download of its URL
 * (whose ETag is etag), as the check of it found it (check: its folder
 * there, another when it moved). A digest given now pins the new bytes as
 * one given at install did. */
const nextOrigin = (m: SkillMeta, check: UpdateInfo, etag: string, o: { digest?: string } = {}): Origin => {
  const next: Origin = { kind: "url", url: m.origin!.url, type: m.origin!.type, digest: o.digest ?? "", verified: !!o.digest, etag };
  if (check.origin.dir) next.dir = check.origin.dir;
  return next;
};

/** The flows behind Registry.installFrom*, checkUpdates and update. */
export class Sources {
  constructor(private readonly call: Call) {}

  private async value<T>(method: string, args: Record<string, unknown>, bytes?: Uint8Array, onProgress?: (p: ImportProgress) => void, signal?: AbortSignal): Promise<T> {
    return (await this.call(method, args, bytes, onProgress as ((p: unknown) => void) | undefined, signal))[0] as T;
  }

  private async index(url: string, names: string[] | undefined, o: FetchOptions): Promise<IndexPlan & { bytes: Uint8Array }> {
    const bytes = await fetchBytes(url, o, MAX_INDEX_BYTES);
    return { ...await this.value<IndexPlan>("source.parseIndex", { url, names: names ?? [] }, bytes), bytes };
  }

  async previewIndex(url: string, o: FetchOptions = {}): Promise<IndexPreview> {
    const p = await this.index(url, undefined, o);
    return {
      url: p.url, version: p.version, skipped: p.skipped, bytes: p.bytes, digest: p.digest,
      entries: p.entries.map(({ name, type, description, url, digest, status, installed, edited }) => ({ name, type, description, url, digest, status, installed, edited })),
    };
  }

  /** Installs the entries of the index at from, or of the index a preview
   * downloaded: then the index is not read again, and what installs is
   * what was reviewed, each artifact verified against the digest shown.
   * An entry installed from there already is left as it is (a warning
   * says so) or, in another version now, updated in place, whatever id it
   * was installed as: decided against the skills installed when the
   * install runs (source.ReviewIndex). */
  async installFromIndex(from: string | IndexPreview, o: InstallOptions & { names?: string[] } = {}): Promise<InstallReport> {
    const plan = typeof from === "string"
      ? await this.index(from, o.names, o)
      : await this.value<IndexPlan>("source.parseIndex", { url: from.url, names: o.names ?? [], previewed: from.digest }, from.bytes);
    const report: InstallReport = { installed: [], refused: [...plan.refused], warnings: [...plan.skipped] };
    const downloads: Download[] = [];
    for (const e of plan.entries) {
      if (e.unverified) report.warnings.push(e.unverified);
      if (e.left) report.warnings.push(e.left);
      else downloads.push([e.name, () => this.downloadEntry(e, o, e.target)]);
    }
    await this.batch(report, downloads, o);
    return report;
  }

  private async downloadEntry(e: EntryPlan, o: InstallOptions & Elsewhere, target = ""): Promise<Install> {
    if (e.type === "files") return this.downloadFiles(e.origin, e.name, e.files, (u) => fetchBytes(u, o), o, target);
    const bytes = await fetchBytes(e.url, o);
    return { run: () => this.installBytes(e.origin, e.name, bytes, o, target), bytes: bytes.byteLength };
  }

  /** preview: bytes are those it gave origin's digest for, and must
   * still be; the skills chosen are still compared with the installed
   * skills it showed (ImportOptions.preview). */
  private installBytes(origin: Origin, dir: string, bytes: Uint8Array, o: PreviewInstallOptions & Elsewhere, target = "", preview?: ImportPreview): Promise<SourceImport> {
    // A download with a broken skill installs the others; the report says which were refused.
    return this.value<SourceImport>("registry.installArtifact", {
      origin, dir, target, onConflict: o.onConflict ?? "rename", skipInvalid: target === "", previewed: !!preview, elsewhere: o.elsewhere ?? [],
      ...choiceArgs(o.choose, preview),
    }, bytes, o.onProgress, o.signal);
  }

  private async downloadFiles(origin: Origin, dir: string, files: FileRef[], get: (url: string) => Promise<Uint8Array>, o: InstallOptions & Elsewhere, target = ""): Promise<Install> {
    const parts: Uint8Array[] = [];
    let total = 0;
    const max = o.maxBytes ?? DEFAULT_MAX_BYTES;
    for (const f of files) {
      const b = await get(f.url);
      total += b.byteLength;
      if (total > max) throw new SkillfsError(`the skill's files are ${sizeText(total)} or more, larger than the ${sizeText(max)} a download may be: nothing of it was installed`, "TooLarge", "download-too-large", dir);
      parts.push(b);
    }
    // The parts are not kept: only their lengths, beside the blob.
    const lengths = parts.map((p) => p.byteLength);
    const blob = concat(parts, total);
    return {
      run: () => this.value<SourceImport>("registry.installFiles", {
        origin, dir, files, lengths, target, onConflict: o.onConflict ?? "rename", skipInvalid: target === "", elsewhere: o.elsewhere ?? [],
      }, blob, o.onProgress, o.signal),
      bytes: total,
    };
  }

  /** Downloads and installs each of downloads in turn, each in its own
   * commit, into report. One refused only because skills it depends on
   * are not installed (the module names each: SkillError.needs) waits,
   * its bytes kept, for skills of those ids to install in this batch, and
   * is installed again once all have; at the end, one some of whose
   * dependencies installed is tried once more, as what it needs of the
   * rest may be no part of this install. What installs does not depend
   * on the order the source lists its skills in, and each is tried again
   * at most once per dependency that installs, and once more at the end
   * (docs/sources.md, "Dependencies within a batch"). One still waiting
   * at the end is refused as its last try was. */
  private async batch(report: InstallReport, downloads: Download[], o: FetchOptions): Promise<void> {
    /** The waiting, under each id one of them waits for. */
    const waiting = new Map<string, Set<Waiter>>();
    /** The bytes the waiting downloads hold, at most two downloads at
     * their largest: past that, one waits without its bytes and is
     * downloaded again, so that skills all waiting on one the source
     * never installs hold no more memory than that. */
    let kept = 0;
    const keep = 2 * (o.maxBytes ?? DEFAULT_MAX_BYTES);
    const wait = (w: Waiter, install: Install, needs: string[]) => {
      const held = kept + install.bytes <= keep;
      if (held) kept += install.bytes;
      const v: Waiter = { ...w, install: held ? install : undefined, missing: new Set(needs), progressed: false };
      for (const id of needs) {
        const ws = waiting.get(id);
        if (ws) ws.add(v);
        else waiting.set(id, new Set([v]));
      }
    };
    /** Lets w go: its bytes are the queue's now. */
    const letGo = (w: Waiter) => {
      kept -= w.install?.bytes ?? 0;
      queue.push(w);
    };
    const queue: Waiter[] = [];
    const run = async (w: Waiter) => {
      let install: Install | undefined;
      let res: SourceImport;
      try {
        install = w.install ?? (await w.download());
        res = await install.run();
      } catch (e) {
        if (fatal(e)) throw e;
        const r = refusalOf(w.name, e);
        // An update in place refused for a skill not installed.
        if (r.needs && install) wait({ ...w, refused: [r] }, install, [r.needs]);
        else report.refused.push(r);
        return;
      }
      report.installed.push(...res.skills);
      // Tried again, only the skills that waited are reported: the
      // others' refusals and warnings were (those it installed before
      // are found as they are).
      if (!w.only) report.warnings.push(...res.already);
      const refusals = refusalsOf(res, w.name);
      const mine = refusals.flatMap((r, i) => (!w.only || w.only.has(r.name) ? [i] : []));
      const needs = [...new Set(mine.flatMap((i) => refusals[i]!.needs ?? []))];
      // With the ones that wait, those depending on a skill of the same
      // download that cannot be installed either: that one may be let
      // through too.
      const waits = needs.length ? mine.filter((i) => refusals[i]!.reason === "unknown-skill") : [];
      report.refused.push(...mine.filter((i) => !waits.includes(i)).map((i) => refusals[i]!));
      if (waits.length) {
        const refused = waits.map((i) => refusals[i]!);
        wait({ ...w, only: new Set(refused.map((r) => r.name)), refused }, install, needs);
      }
      for (const m of res.skills) {
        const ws = waiting.get(m.id);
        waiting.delete(m.id);
        for (const v of ws ?? []) {
          v.missing!.delete(m.id);
          v.progressed = true;
          if (!v.missing!.size) letGo(v);
        }
      }
    };
    // Each in turn, and what it lets through, and what that lets through.
    const drain = async () => {
      for (let w = queue.shift(); w; w = queue.shift()) await run(w);
    };
    for (const [name, download] of downloads) {
      queue.push({ name, download, refused: [] });
      await drain();
    }
    for (;;) {
      const left = new Set([...waiting.values()].flatMap((ws) => [...ws]));
      const again = [...left].filter((w) => w.progressed);
      if (!again.length) {
        for (const w of left) report.refused.push(...w.refused);
        return;
      }
      for (const w of again) {
        for (const id of w.missing!) {
          const ws = waiting.get(id)!;
          ws.delete(w);
          if (!ws.size) waiting.delete(id);
        }
        letGo(w);
      }
      await drain();
    }
  }

  async previewMcp(serverUrl: string, o: FetchOptions = {}): Promise<McpPreview> {
    const mcp = await (await import("./mcp.js")).connectMcp(serverUrl, o);
    try {
      const listing = await mcp.list();
      const p = await this.value<Omit<McpPreview, "server" | "listing">>("source.reviewMcp", { server: serverUrl }, listing, undefined, o.signal);
      return { ...p, server: serverUrl, listing };
    } finally {
      await mcp.close();
    }
  }

  /** Installs the skills of the server at from, or those reviewed in a
   * preview: then the listing is not asked again, and each file read is
   * verified against the digest reviewed. */
  async installFromMcp(from: string | McpPreview, o: McpInstallOptions = {}): Promise<InstallReport> {
    const server = typeof from === "string" ? from : from.server;
    const mcp = await (await import("./mcp.js")).connectMcp(server, o);
    try {
      const args = { server, skills: o.skills ?? [], onConflict: o.onConflict ?? "rename", ...(o.choose ? { choose: o.choose } : {}) };
      const plan = typeof from === "string"
        ? await this.value<McpListPlan>("source.parseMcp", args, await mcp.list())
        : await this.value<McpListPlan>("source.parseMcp", { ...args, previewed: from.digest }, from.listing);
      // What the listing leaves out was shown in the review, if there was one.
      const report: InstallReport = { installed: [], refused: [...(typeof from === "string" ? plan.skipped : []), ...plan.refused], warnings: plan.warnings };
      const downloads: Download[] = [];
      for (const s of plan.skills) {
        downloads.push([s.name, () => this.downloadFiles(s.origin, s.name, s.files, (u) => mcp.read(u), { ...o, onConflict: s.onConflict }, s.target)]);
      }
      await this.batch(report, downloads, o);
      return report;
    } finally {
      await mcp.close();
    }
  }

  /** The artifact at url within o's bounds — for a repository's page on
   * GitHub, or a folder's, the archive of it — the origin it is installed
   * under, and the warning of an install without a digest (source.ForURL). */
  private async download(url: string, o: FetchOptions & { digest?: string }): Promise<{ origin: Origin; bytes: Uint8Array; warnings: Refusal[] }> {
    const at = await this.value<{ url: string; origin: Origin; warnings: Refusal[] }>("source.locate", { url, digest: o.digest ?? "" }, undefined, undefined, o.signal);
    const got = await fetchArtifact(at.url, o);
    return { origin: { ...at.origin, etag: got.etag }, bytes: got.bytes!, warnings: at.warnings };
  }

  private report(url: string, res: SourceImport, warnings: Refusal[]): InstallReport {
    return { installed: res.skills, refused: refusalsOf(res, url), warnings: [...warnings, ...res.already] };
  }

  async installFromUrl(url: string, o: InstallOptions & { digest?: string } = {}): Promise<InstallReport> {
    const got = await this.download(url, o);
    return this.report(url, await this.installBytes(got.origin, "", got.bytes, o), got.warnings);
  }

  async previewFromUrl(url: string, o: FetchOptions & { digest?: string } = {}): Promise<UrlPreview> {
    const got = await this.download(url, o);
    // The module verifies the digest and sets the origin's digest and type.
    const p = await this.value<ImportPreview & { origin: Origin }>("source.previewArtifact", { origin: got.origin, dir: "" }, got.bytes, undefined, o.signal);
    return { ...p, url, bytes: got.bytes, warnings: got.warnings };
  }

  async installFromPreview(p: UrlPreview, o: PreviewInstallOptions = {}): Promise<InstallReport> {
    return this.report(p.url, await this.installBytes(p.origin, "", p.bytes, o, "", p), p.warnings);
  }

  /** The updates of the skills of list that have a source. Distinct
   * sources are asked CHECK_SOURCES at a time (docs/sources.md, "Update
   * checks"), so that a slow one holds up only itself; the answers come in
   * the order of the sources, whatever order they arrive in. */
  async checkUpdates(list: SkillMeta[], o: FetchOptions = {}): Promise<UpdateInfo[]> {
    const sourced = list.filter((m) => m.origin);
    // A fatal error (an abort, a permission refused) ends every request of the check.
    const stop = new AbortController();
    const onAbort = () => stop.abort(o.signal!.reason);
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort, { once: true });
    const f: FetchOptions = { ...o, signal: stop.signal };
    const by = (key: (m: SkillMeta) => string | undefined) => groupBy(sourced, key);
    /** Each source's check, asked once for all its skills. */
    const checks: [SkillMeta[], () => Promise<UpdateInfo[]>][] = [];
    for (const [url, ms] of by((m) => (m.origin!.kind === "index" ? m.origin!.index : undefined))) {
      checks.push([ms, async () => this.value<UpdateInfo[]>("source.checkIndex", { url }, await fetchBytes(url, f, MAX_INDEX_BYTES))]);
    }
    for (const [server, ms] of by((m) => (m.origin!.kind === "mcp" ? m.origin!.server : undefined))) {
      checks.push([ms, async () => {
        const mcp = await (await import("./mcp.js")).connectMcp(server, f);
        try {
          return await this.value<UpdateInfo[]>("source.checkMcp", { server }, await mcp.list());
        } finally {
          await mcp.close();
        }
      }]);
    }
    // A plain URL publishes no digest: it is asked with the ETag it sent,
    // and fetched again to compare unless it answers 304 — once for all
    // the skills of one download (a repository's: checkDownload). Those
    // the download finds current record it, its ETag too
    // (Registry.CheckDownload).
    for (const [url, ms] of by((m) => (m.origin!.kind === "url" ? m.origin!.url : undefined))) {
      checks.push([ms, async () => {
        const { checks: found } = await this.checkDownload(url, ms, f);
        return found ?? ms.map((m): UpdateInfo => ({ id: m.id, status: "current", installed: m.origin!.digest, latest: m.origin!.digest, origin: m.origin! }));
      }]);
    }
    const answers: UpdateInfo[][] = [];
    let fatalError: { e: unknown } | undefined;
    let next = 0;
    const worker = async () => {
      while (next < checks.length && !fatalError) {
        const i = next++;
        const [ms, check] = checks[i]!;
        try {
          answers[i] = await check();
        } catch (e) {
          if (fatal(e)) {
            fatalError ??= { e };
            stop.abort(e);
            return;
          }
          const r = refusalOf("", e);
          answers[i] = ms.map((m) => ({ id: m.id, status: "error", installed: m.origin!.digest, latest: "", origin: m.origin!, code: r.code, reason: r.reason, message: r.message }));
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(CHECK_SOURCES, checks.length) }, worker));
    } finally {
      o.signal?.removeEventListener("abort", onAbort);
    }
    if (fatalError) throw fatalError.e;
    // An index or server answers for every installed skill it published,
    // named in list or not.
    const asked = new Set(sourced.map((m) => m.id));
    return answers.flat().filter((u) => asked.has(u.id));
  }

  async update(m: SkillMeta, o: InstallOptions & { digest?: string } = {}): Promise<UpdateResult> {
    const origin = m.origin;
    // In pkg/registry's words (noOrigin), which the check of a download says.
    if (!origin) throw new SkillfsError("the skill was imported from an archive, not installed from where it is published, so nothing says where to update it from: import its new version instead", "InvalidArgument", "no-origin", m.id);
    const gone = () => goneError(m);
    let res: ImportResult;
    switch (origin.kind) {
      case "index": {
        // Its entry alone is reviewed against the installed skills; the
        // other entries' names are where an update refused for needing
        // one of them says to install it from.
        const plan = await this.index(origin.index!, [origin.entry!], o);
        const e = plan.entries[0];
        if (!e) {
          // Listed in a form this version cannot install, in the module's words (as checkUpdates says it).
          const u = plan.unusable[0];
          if (!u) throw gone();
          throw new SkillfsError(u.message, u.code, u.reason, m.id);
        }
        if (e.origin.verified && e.digest === origin.digest) return { status: "current", skill: m };
        const elsewhere = plan.names.filter((n) => n !== origin.entry);
        // The skill's own folder of the entry's archive, when it has one.
        res = await (await this.downloadEntry(origin.dir ? { ...e, origin: { ...e.origin, dir: origin.dir } } : e, { ...o, elsewhere }, m.id)).run();
        break;
      }
      case "mcp": {
        const connect = async () => (await import("./mcp.js")).connectMcp(origin.server!, o);
        let mcp = await connect();
        try {
          // skills/get of the one skill. A server that no longer has it
          // there answers with an error (which ends the connection): then
          // its listing says whether it moved to another URI
          // (source.CheckMCP), else it is "gone".
          let uri = origin.uri!;
          let listing: Uint8Array;
          try {
            listing = await mcp.get(uri);
          } catch (e) {
            if (!(e instanceof SkillfsError && e.reason === "mcp-request")) throw e;
            mcp = await connect();
            listing = await mcp.list();
            const moved = (await this.value<UpdateInfo[]>("source.checkMcp", { server: origin.server }, listing)).find((u) => u.id === m.id);
            if (moved?.status !== "current" && moved?.status !== "changed") throw gone();
            uri = moved.origin.uri!;
          }
          const plan = await this.value<McpListPlan>("source.parseMcp", { server: origin.server, skills: [uri] }, listing);
          const s = plan.skills[0];
          if (!s) throw gone();
          if (s.digest === origin.digest) return { status: "current", skill: m };
          res = await (await this.downloadFiles(s.origin, s.name, s.files, (u) => mcp.read(u), o, m.id)).run();
        } finally {
          await mcp.close();
        }
        break;
      }
      default: {
        const got = await fetchArtifact(origin.url!, o, undefined, o.digest ? "" : origin.etag);
        if (!got.bytes) return { status: "current", skill: m };
        const [check] = await this.value<UpdateInfo[]>("source.checkBytes", { ids: [m.id], etag: got.etag }, got.bytes);
        if (check!.status === "current" && !o.digest) return { status: "current", skill: m };
        if (check!.status === "gone") throw gone();
        res = await this.installDownload(m, check!, got, o);
      }
    }
    return { status: "updated", skill: res.skills[0]!, ...(res.skills.length > 1 ? { installed: res.skills.slice(1) } : {}) };
  }

  /** A download of url fetched once for the skills ms installed from it,
   * and what it holds for each (Registry.CheckDownload), in ms's order;
   * no checks when the server answered that it has not changed (304). It
   * is asked with the skills' ETag when they record one: those that
   * record several (one updated since, another changed and not) are
   * downloaded once without one, since all but one ETag would be
   * answered with the whole download anyway. */
  private async checkDownload(url: string, ms: SkillMeta[], o: FetchOptions): Promise<{ got: Fetched; checks?: UpdateInfo[] }> {
    const etags = new Set(ms.map((m) => m.origin!.etag ?? ""));
    const got = await fetchArtifact(url, o, undefined, etags.size === 1 ? ms[0]!.origin!.etag : "");
    if (!got.bytes) return { got };
    return { got, checks: await this.value<UpdateInfo[]>("source.checkBytes", { ids: ms.map((m) => m.id), etag: got.etag }, got.bytes) };
  }

  /** Installs skill m's version of a download of its URL (got), as the
   * check of it found it (check: its folder there, another when it
   * moved), replacing m in one commit. A digest given now pins the new
   * bytes as one given at install did. */
  private installDownload(m: SkillMeta, check: UpdateInfo, got: Fetched, o: InstallOptions & { digest?: string }): Promise<SourceImport> {
    return this.installBytes(nextOrigin(m, check, got.etag, o), "", got.bytes!, o, m.id);
  }

  /** Updates each skill of ms as update() would, each in its own commit,
   * and says what became of each; one that fails leaves it as it was and
   * the others go on. The skills installed from one download (a
   * repository's) are updated from one download of it, not one each. */
  async updateMany(ms: SkillMeta[], o: InstallOptions = {}): Promise<UpdateOutcome[]> {
    const out: UpdateOutcome[] = [];
    const failed = (id: string, e: unknown) => {
      if (fatal(e)) throw e;
      const r = refusalOf(id, e);
      out.push({ id, status: "error", code: r.code, reason: r.reason, message: r.message });
    };
    for (const m of ms) {
      if (m.origin?.kind === "url") continue;
      try {
        const r = await this.update(m, o);
        out.push({ id: m.id, ...r });
      } catch (e) {
        failed(m.id, e);
      }
    }
    for (const [url, group] of groupBy(ms, (m) => (m.origin?.kind === "url" ? m.origin.url : undefined))) {
      let got: Fetched;
      let checks: UpdateInfo[] | undefined;
      try {
        ({ got, checks } = await this.checkDownload(url, group, o));
      } catch (e) {
        for (const m of group) failed(m.id, e);
        continue;
      }
      // Those found changed are updated in one call, which reads the
      // download once for all of them (Registry.ImportEach), each in its
      // own commit.
      const changed = group.flatMap((m, i) => (checks?.[i]?.status === "changed" ? [{ target: m.id, origin: nextOrigin(m, checks[i]!, got.etag) }] : []));
      let updated: { skill?: SkillMeta; installed?: SkillMeta[]; code?: ErrorCode; reason?: string; message?: string }[] = [];
      if (changed.length) {
        try {
          updated = await this.value("registry.updateDownload", { onConflict: o.onConflict ?? "rename", updates: changed }, got.bytes, undefined, o.signal);
        } catch (e) {
          for (const u of changed) failed(u.target, e);
        }
      }
      const byId = new Map(updated.map((u, i) => [changed[i]!.target, u]));
      for (const [i, m] of group.entries()) {
        const check = checks?.[i];
        const u = byId.get(m.id);
        if (!check || check.status === "current") {
          out.push({ id: m.id, status: "current", skill: m });
        } else if (check.status === "gone") {
          failed(m.id, goneError(m));
        } else if (check.status === "error") {
          out.push({ id: m.id, status: "error", code: check.code, reason: check.reason, message: check.message });
        } else if (u?.skill) {
          out.push({ id: m.id, status: "updated", skill: u.skill, ...(u.installed ? { installed: u.installed } : {}) });
        } else if (u) {
          out.push({ id: m.id, status: "error", code: u.code, reason: u.reason, message: u.message });
        }
      }
    }
    return out;
  }
}
