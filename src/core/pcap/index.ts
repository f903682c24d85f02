// Packet captures with no knowledge of BC: classic pcap and pcapng read back as a
// stream of packets, pcapng written block by block, Ethernet/IPv4/UDP frames built
// and taken apart, and the jumps of a capture's clock.
export { openCapture } from './open-capture.js';
export { BUFFER_BYTES, MAX_RECORD_BYTES } from './capture-reader.js';
export type { CaptureError, CaptureFormat, CapturePacket, ReaderOptions } from './capture-packet.js';
export { SUPPORTED_LINK_TYPES, linkTypeName } from './formats.js';
export { PcapngWriter, LINKTYPE_ETHERNET } from './pcapng-writer.js';
export type { PcapngSink } from './pcapng-writer.js';
export { FRAME_HEADER_BYTES, FrameTemplate, buildFrame, formatIp, formatMac, macFor } from './frames.js';
export type { Endpoint } from './frames.js';
export { FRAME_SKIP_TEXT, endpointKey, formatEndpoint, newMutableUdp, udpFromFrame, udpInto } from './udp.js';
export type { MutableUdp, UdpDatagram, UdpResult } from './udp.js';
export { PacketTimeline } from './packet-timeline.js';
