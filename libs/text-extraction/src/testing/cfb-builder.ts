/**
 * Test support: a minimal OLE2 compound file (512-byte sectors: one FAT
 * sector, one directory sector) whose root holds the named streams, each
 * empty. Enough for type detection, which reads only the directory.
 */
export function buildCompoundFile(rootStreams: string[], nested?: { storage: string; streams: string[] }): Buffer {
  const SECTOR = 512;
  const END_OF_CHAIN = 0xfffffffe;
  const FREE = 0xffffffff;
  const header = Buffer.alloc(SECTOR);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x3e, 0x18);
  header.writeUInt16LE(3, 0x1a);
  header.writeUInt16LE(0xfffe, 0x1c);
  header.writeUInt16LE(9, 0x1e);
  header.writeUInt16LE(6, 0x20);
  header.writeUInt32LE(1, 0x2c); // FAT sectors
  header.writeUInt32LE(1, 0x30); // first directory sector
  header.writeUInt32LE(4096, 0x38);
  header.writeUInt32LE(END_OF_CHAIN, 0x3c);
  header.writeUInt32LE(END_OF_CHAIN, 0x44);
  for (let i = 0; i < 109; i += 1) header.writeUInt32LE(i === 0 ? 0 : FREE, 0x4c + 4 * i);

  const fat = Buffer.alloc(SECTOR, 0xff);
  fat.writeUInt32LE(0xfffffffd, 0); // sector 0: the FAT itself
  fat.writeUInt32LE(END_OF_CHAIN, 4); // sector 1: the directory, one sector

  interface Entry {
    name: string;
    type: number;
    left: number;
    right: number;
    child: number;
  }
  const entries: Entry[] = [{ name: 'Root Entry', type: 5, left: FREE, right: FREE, child: FREE }];
  const addSiblings = (names: string[], type: (n: string) => number): number => {
    const first = entries.length;
    names.forEach((name, i) => entries.push({ name, type: type(name), left: FREE, right: i + 1 < names.length ? first + i + 1 : FREE, child: FREE }));
    return names.length > 0 ? first : FREE;
  };
  const rootNames = nested ? [...rootStreams, nested.storage] : rootStreams;
  entries[0]!.child = addSiblings(rootNames, (n) => (nested && n === nested.storage ? 1 : 2));
  if (nested) {
    const storage = entries.find((e) => e.name === nested.storage)!;
    storage.child = addSiblings(nested.streams, () => 2);
  }
  const directorySectors = Math.ceil(entries.length / 4);
  if (directorySectors > 1) throw new Error('buildCompoundFile: at most 4 directory entries');
  const directory = Buffer.alloc(SECTOR);
  entries.forEach((entry, i) => {
    const at = i * 128;
    const name = Buffer.from(`${entry.name}\0`, 'utf16le');
    name.copy(directory, at);
    directory.writeUInt16LE(name.length, at + 0x40);
    directory[at + 0x42] = entry.type;
    directory.writeUInt32LE(entry.left, at + 0x44);
    directory.writeUInt32LE(entry.right, at + 0x48);
    directory.writeUInt32LE(entry.child, at + 0x4c);
    directory.writeUInt32LE(END_OF_CHAIN, at + 0x74);
  });
  return Buffer.concat([header, fat, directory]);
}
