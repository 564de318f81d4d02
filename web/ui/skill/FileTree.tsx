// A skill's files as an ARIA tree (role tree/treeitem, flat with levels), with the
// keyboard of the WAI-ARIA tree pattern: Up/Down move, Right opens a
// folder or enters it, Left closes it or goes to the parent, Home/End,
// Enter opens a file; F2 renames, Delete deletes (after confirmation).
// One item is in the tab order (roving tabindex).

import { useLayoutEffect, useRef } from 'preact/hooks';
import type { Node } from './files.ts';

interface Props {
  nodes: Node[];
  label: string;
  selected: string | undefined;
  expanded: Set<string>;
  onSelect(n: Node): void;
  onToggle(path: string, open: boolean): void;
  onOpen(n: Node): void;
  /** F2 and Delete, as file managers have them. */
  onRename(n: Node): void;
  onDelete(n: Node): void;
}

/** The nodes a keyboard user can reach, in order, with their parents. */
function visible(nodes: Node[], expanded: Set<string>, parent?: Node, out: { n: Node; parent?: Node }[] = []) {
  for (const n of nodes) {
    out.push({ n, parent });
    if (n.isDir && expanded.has(n.path)) visible(n.children, expanded, n, out);
  }
  return out;
}

export function FileTree(p: Props) {
  const ref = useRef<HTMLUListElement>(null);
  const focusNext = useRef(false);
  const items = visible(p.nodes, p.expanded);
  const current = items.find((i) => i.n.path === p.selected) ?? items[0];

  // Focus follows the keyboard's selection as soon as it is in the DOM.
  useLayoutEffect(() => {
    if (!focusNext.current) return;
    focusNext.current = false;
    ref.current?.querySelector<HTMLElement>('[role=treeitem][tabindex="0"]')?.focus();
  });

  const move = (n: Node | undefined) => {
    if (!n) return;
    focusNext.current = true;
    p.onSelect(n);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (!current) return;
    const at = items.indexOf(current);
    const n = current.n;
    switch (e.key) {
      case 'ArrowDown': move(items[at + 1]?.n); break;
      case 'ArrowUp': move(items[at - 1]?.n); break;
      case 'Home': move(items[0]?.n); break;
      case 'End': move(items[items.length - 1]?.n); break;
      case 'ArrowRight':
        if (n.isDir && !p.expanded.has(n.path)) p.onToggle(n.path, true);
        else if (n.isDir) move(n.children[0]);
        break;
      case 'ArrowLeft':
        if (n.isDir && p.expanded.has(n.path)) p.onToggle(n.path, false);
        else move(current.parent);
        break;
      case 'Enter':
      case ' ':
        if (n.isDir) p.onToggle(n.path, !p.expanded.has(n.path));
        else p.onOpen(n);
        break;
      case 'F2': p.onRename(n); break;
      case 'Delete': p.onDelete(n); break;
      default:
        return;
    }
    e.preventDefault();
  };

  // A flat list of the visible items with their levels (ARIA's flat tree):
  // each item holds only its own row, so its name is what it shows.
  const rows = items.map(({ n, parent }) => {
    const open = n.isDir && p.expanded.has(n.path);
    const siblings = parent ? parent.children : p.nodes;
    const level = n.path.split('/').length;
    return (
      <li
        key={n.path}
        role="treeitem"
        aria-label={n.path}
        aria-level={level}
        aria-setsize={siblings.length}
        aria-posinset={siblings.indexOf(n) + 1}
        aria-expanded={n.isDir ? open : undefined}
        aria-selected={n.path === current?.n.path}
        tabIndex={n.path === current?.n.path ? 0 : -1}
        data-path={n.path}
        style={{ paddingLeft: `${(level - 1) * 16}px` }}
        onClick={() => {
          p.onSelect(n);
          if (n.isDir) p.onToggle(n.path, !open);
          else p.onOpen(n);
        }}
      >
        <span class={n.isDir ? 'tree-row tree-dir' : 'tree-row'}>
          <span class="tree-icon" aria-hidden="true">{n.isDir ? (open ? '▾' : '▸') : ''}</span>
          {n.name}
        </span>
      </li>
    );
  });

  return (
    <ul ref={ref} role="tree" aria-label={p.label} class="file-tree" onKeyDown={onKeyDown}>
      {rows}
    </ul>
  );
}
