/** The two simulated hosts. The server is peer id 0x01; the client gets a slot (docs/sources.md 5). */
export type Role = 'server' | 'client';
