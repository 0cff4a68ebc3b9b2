/**
 * Buffers whose memory goes back to the system the moment they are done with,
 * for the large transient copies of a diff (a request body, the file read to
 * show beside it). A plain buffer's memory stays until a full GC, often after
 * the rest of the diff's work: its peak then holds both.
 */

interface ResizableArrayBuffer extends ArrayBuffer {
  resize?: (byteLength: number) => void;
}
type ResizableArrayBufferConstructor = new (byteLength: number, options: { maxByteLength: number }) => ResizableArrayBuffer;

/** Below this a plain buffer: the saving is small, and V8 reads resizable buffers' elements slower. */
export const RELEASABLE_MIN_BYTES = 1 << 20;

/**
 * A buffer of `size` bytes, and how to give its memory back. A large one lives
 * in a resizable ArrayBuffer: resized to 0, its pages go back at once. After
 * `release()` the buffer is empty; every string decoded from it is a copy.
 */
export function allocateReleasable(size: number): { buffer: Buffer; release: () => void } {
  if (size < RELEASABLE_MIN_BYTES) return { buffer: Buffer.allocUnsafe(size), release: () => {} };
  const arrayBuffer = new (ArrayBuffer as unknown as ResizableArrayBufferConstructor)(size, { maxByteLength: size });
  return {
    buffer: Buffer.from(arrayBuffer, 0, size),
    // A runtime without resizable buffers ignores maxByteLength: the memory then goes at the next GC.
    release: () => arrayBuffer.resize?.(0),
  };
}
