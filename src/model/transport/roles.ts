/** The two simulated hosts. The server is peer id 0x01; the client gets a slot (DECISIONS.md 5). */
export type Role = 'server' | 'client';
