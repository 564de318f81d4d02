// What the skill view knows about a skill's files without the editor:
// the tree as nested nodes, whether bytes are text, their media type.

import type { TreeEntry } from '../../../js/bridge.ts';

export interface Node {
  path: string;
  name: string;
  isDir: boolean;
  size: number;
  children: Node[];
}

/** The nodes of the flat, path-sorted entries of registry.tree, folders first at each level. */
export function buildTree(entries: TreeEntry[]): Node[] {
  const root: Node[] = [];
  const dirs = new Map<string, Node>();
  for (const e of entries) {
    const cut = e.path.lastIndexOf('/');
    const node: Node = { path: e.path, name: e.path.slice(cut + 1), isDir: e.isDir, size: e.size, children: [] };
    if (e.isDir) dirs.set(e.path, node);
    // A parent the listing lacks cannot happen (the store implies every
    // parent), but a node without one is still shown, at the top.
    (cut < 0 ? root : dirs.get(e.path.slice(0, cut))?.children ?? root).push(node);
  }
  const order = (ns: Node[]) => {
    ns.sort((a, b) => Number(b.isDir) - Number(a.isDir) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const n of ns) order(n.children);
  };
  order(root);
  return root;
}

/** The folder a new file or folder goes in when path is selected: path itself for a folder, its parent for a file. */
export function folderOf(path: string | undefined, isDir: boolean): string {
  if (!path) return '';
  if (isDir) return path;
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

/** The text of bytes when they are text as the registry holds it (UTF-8 without NUL bytes), else undefined. */
export function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', ico: 'image/x-icon',
  svg: 'image/svg+xml', bmp: 'image/bmp', pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip',
  tgz: 'application/gzip', tar: 'application/x-tar', ttf: 'font/ttf', otf: 'font/otf', woff: 'font/woff',
  woff2: 'font/woff2', wasm: 'application/wasm', mp3: 'audio/mpeg', wav: 'audio/wav', mp4: 'video/mp4',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** The media type of a binary file, by its extension. */
export function binaryMediaType(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot > path.lastIndexOf('/') && MEDIA_TYPES[path.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

