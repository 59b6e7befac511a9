/**
 * Names of the top-level streams of an OLE2 compound file (legacy .doc/.xls),
 * read from the header, the FAT and the directory. Top level only: an Excel
 * sheet embedded in a Word file has its `Workbook` stream inside a storage of
 * its own, not at the root.
 */

export const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

const HEADER_SIZE = 512;
const DIRECTORY_ENTRY_SIZE = 128;
/** Sector ids at or above this are markers (free, end of chain, FAT, DIFAT). */
const MAX_REGULAR_SECTOR = 0xfffffffa;
const NO_STREAM = 0xffffffff;
const MAX_DIRECTORY_SECTORS = 10_000;

interface DirectoryEntry {
  name: string;
  type: number;
  left: number;
  right: number;
  child: number;
}

export function isOle2(buf: Buffer): boolean {
  return buf.length >= HEADER_SIZE && buf.subarray(0, 8).equals(OLE2_MAGIC);
}

/** Undefined when the file is not a readable compound file (damaged, truncated). */
export function ole2RootStreamNames(buf: Buffer): string[] | undefined {
  if (!isOle2(buf)) return undefined;
  const sectorShift = buf.readUInt16LE(0x1e);
  if (sectorShift !== 9 && sectorShift !== 12) return undefined;
  const sectorSize = 1 << sectorShift;
  const idsPerSector = sectorSize / 4;
  const sectorOffset = (id: number): number => (id + 1) * sectorSize;
  const sectorFits = (id: number): boolean => id < MAX_REGULAR_SECTOR && sectorOffset(id) + sectorSize <= buf.length;

  // The FAT's own sectors: 109 listed in the header, the rest in the DIFAT chain.
  const fatSectorCount = buf.readUInt32LE(0x2c);
  const fatSectors: number[] = [];
  for (let i = 0; i < 109 && fatSectors.length < fatSectorCount; i += 1) fatSectors.push(buf.readUInt32LE(0x4c + 4 * i));
  let difat = buf.readUInt32LE(0x44);
  for (let hops = 0; fatSectors.length < fatSectorCount; hops += 1) {
    if (!sectorFits(difat) || hops > fatSectorCount) return undefined;
    const at = sectorOffset(difat);
    for (let i = 0; i < idsPerSector - 1 && fatSectors.length < fatSectorCount; i += 1) fatSectors.push(buf.readUInt32LE(at + 4 * i));
    difat = buf.readUInt32LE(at + sectorSize - 4);
  }
  const nextSector = (id: number): number | undefined => {
    const fatSector = fatSectors[Math.floor(id / idsPerSector)];
    if (fatSector === undefined || !sectorFits(fatSector)) return undefined;
    return buf.readUInt32LE(sectorOffset(fatSector) + 4 * (id % idsPerSector));
  };

  const entries: DirectoryEntry[] = [];
  let sector = buf.readUInt32LE(0x30);
  for (let hops = 0; sector < MAX_REGULAR_SECTOR; hops += 1) {
    if (!sectorFits(sector) || hops > MAX_DIRECTORY_SECTORS) return undefined;
    const at = sectorOffset(sector);
    for (let i = 0; i < sectorSize / DIRECTORY_ENTRY_SIZE; i += 1) {
      const e = at + i * DIRECTORY_ENTRY_SIZE;
      const nameBytes = Math.min(buf.readUInt16LE(e + 0x40), 64);
      entries.push({
        name: nameBytes >= 2 ? buf.toString('utf16le', e, e + nameBytes - 2) : '',
        type: buf[e + 0x42] ?? 0,
        left: buf.readUInt32LE(e + 0x44),
        right: buf.readUInt32LE(e + 0x48),
        child: buf.readUInt32LE(e + 0x4c),
      });
    }
    const next = nextSector(sector);
    if (next === undefined) return undefined;
    sector = next;
  }

  const root = entries[0];
  if (!root || root.type !== 5) return undefined;
  // The root's children form a tree linked by left/right sibling ids.
  const names: string[] = [];
  const seen = new Set<number>();
  const pending = [root.child];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id === NO_STREAM || seen.has(id)) continue;
    const entry = entries[id];
    if (!entry) return undefined;
    seen.add(id);
    if (entry.type === 2) names.push(entry.name);
    pending.push(entry.left, entry.right);
  }
  return names;
}
