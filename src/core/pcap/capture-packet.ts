// What the capture reader hands out (capture-reader.ts): packets, skips confined
// to one packet, and errors that end the file, each naming its byte offset.

export type CaptureFormat = 'pcap' | 'pcapng';

export type CaptureErrorCode =
  /** The file cannot be opened or read (ENOENT, EACCES, EISDIR, …). */
  | 'io'
  /** Not a regular file (a directory, a pipe): captures are read by position. */
  | 'not-a-file'
  /** The first bytes are neither a pcap nor a pcapng magic. */
  | 'bad-magic'
  /** A header or record runs past the end of the file. */
  | 'truncated'
  /** A header field is impossible (version, byte-order magic, a pcapng block length). */
  | 'bad-header'
  /** A length field contradicts the file (past the end, not matching its trailing copy, absurdly large). */
  | 'bad-length'
  /** Classic pcap of a link type this reader cannot take apart: no packet could be used. */
  | 'unsupported-link-type'
  /** A packet's time is outside the range bcsim can show, 0 to 2^53 − 1 µs after 1970 (timestamps.ts). */
  | 'bad-timestamp';

export interface CaptureError {
  readonly code: CaptureErrorCode;
  /** Byte offset in the file where the problem is. */
  readonly offset: number;
  readonly reason: string;
}

export type ReaderSkipReason =
  /** A pcapng packet block on an interface whose link type is not one the decoder knows. */
  | 'unsupported-link-type'
  /** A pcapng packet block naming an interface no IDB of its section described. */
  | 'unknown-interface'
  /** A packet block whose captured length overruns the block. */
  | 'bad-packet-block';

export interface CapturePacket {
  /** 1-based number of the packet in the file, as Wireshark numbers frames (skipped packets included). */
  readonly number: number;
  /** Byte offset of the record or block in the file. */
  readonly offset: number;
  /** Microseconds since 1970-01-01 (fractional with a finer resolution), 0 to 2^53 − 1 (timestamps.ts). */
  readonly timeUs: number;
  readonly linkType: number;
  readonly interfaceId: number;
  /** The captured bytes: a view into the reader's buffer, valid until the next `next()`. */
  readonly data: Uint8Array;
  /** The packet's length on the wire (>= data.length when the capture cut it). */
  readonly originalLength: number;
  /** pcapng opt_comment of the packet, when the reader was asked for comments. */
  readonly comment: string | null;
}

export type ReadStep =
  | { readonly kind: 'packet'; readonly packet: CapturePacket }
  | {
      readonly kind: 'skip';
      readonly number: number;
      readonly offset: number;
      readonly reason: ReaderSkipReason;
      readonly detail: string;
    }
  | { readonly kind: 'end' }
  | { readonly kind: 'error'; readonly error: CaptureError };

export interface ReaderOptions {
  /** Decode pcapng opt_comment (default false: it costs a UTF-8 decode per packet). */
  readonly comments?: boolean;
  /** Buffer size in bytes (default 1 MiB); tests make it small to exercise the refills. */
  readonly bufferBytes?: number;
}
