// Files of a folder dropped on the page (DataTransfer items as FileSystem entries, read recursively).
// Each File gets the webkitRelativePath a folder pick would give it ("folder/sub/file"), which is
// what the engine's files source reads.

export interface DroppedFolder {
  name: string;
  files: File[];
}

const MAX_FILES = 10_000;

export async function filesFromDrop(dt: DataTransfer): Promise<DroppedFolder> {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  const files: File[] = [];
  const dirs = entries.filter((e) => e.isDirectory);
  const root = dirs.length === 1 && entries.length === 1 ? (dirs[0] as FileSystemDirectoryEntry) : null;
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    if (files.length >= MAX_FILES) throw new Error(`the dropped folder has more than ${MAX_FILES} files`);
    if (entry.isFile) {
      const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
      Object.defineProperty(file, 'webkitRelativePath', { value: prefix + entry.name });
      files.push(file);
    } else if (entry.isDirectory) {
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      // readEntries returns batches until an empty one
      for (;;) {
        const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const child of batch) await walk(child, `${prefix}${entry.name}/`);
      }
    }
  };
  if (root) await walk(root, '');
  else for (const e of entries) await walk(e, '');
  if (files.length === 0) {
    // browsers without entries support: plain files only
    for (const f of dt.files) files.push(f);
  }
  return { name: root?.name ?? 'dropped files', files };
}
