-- bcsim.lua: Wireshark dissector for the Star Trek: Bridge Commander 1.1
-- reliable-UDP transport, as bcsim models it (../README.md, "Wireshark dissector").
--
--   tshark -X lua_script:dissector/bcsim.lua -r capture.pcapng
--   or copy this file into Wireshark's personal Lua plugins folder.
--
-- What it does:
--   * UDP port 22101 (the BC default, docs/sources.md 19; a preference) plus a
--     heuristic dissector for other UDP ports that accepts a datagram only when
--     it parses exactly (plausible peer id, msg_count and lengths that add up).
--   * Decrypts AlbyRules (docs/sources.md 22) and shows the decrypted bytes as a data
--     source of their own ("Decrypted BC"); plaintext captures (bcsim
--     --pcap-plaintext) are recognised too. The field bc.reading says which.
--   * Decodes every message type with fields named after `bcsim decode --json`.
--   * Expert info, one summary per kind (so Wireshark groups it): malformed
--     datagrams (by code; offset and reason in the tree, worded as bcsim's decoder
--     words them), in the capture: data sent again (fragment / reliable retransmits,
--     `[RETRANSMIT #n]` as in `bcsim trace`) and ACKs sent again (ACK repeats; a
--     stock entry's 4th to 9th send is `[DEAD-ZONE ACK, pass 2]`, as in the trace).
--   * The wire forms real reimplementations send (docs/sources.md 30) are read, not
--     called malformed: each deviation is a bc.deviation item worded as `bcsim
--     decode` words it, and an expert note by code. The heuristic takes stock-form
--     datagrams only (ACK flag bytes with bit 7 set included).
--   * A datagram bcsim dropped (packet comment `DROPPED by link: <cause>`, or the
--     proxy's `DROPPED (<cause>)`) is marked: Info starts `[DROPPED: <cause>]`,
--     bc.dropped and bc.dropped.cause are set (filter or colour on bc.dropped).
--
-- Runs on Lua 5.1 and 5.2 (Wireshark up to 4.2: the `bit32` or `bit` library) and
-- on Lua 5.3/5.4 (native operators, compiled from a string so that older Lua can
-- still parse this file). The only bit operation needed is XOR; everything else
-- is plain arithmetic. Script arguments (tshark -X lua_script1:KEY=VALUE):
--   bitlib=native|bit32|bit|arith  forces the XOR implementation (for tests).
-- Outside Wireshark (no Proto global) the file returns its codec as a table.

local script_args = { ... }
local options = {}
for _, arg in ipairs(script_args) do
  if type(arg) == 'string' then
    local key, value = arg:match('^([%w_]+)=(.*)$')
    if key then options[key] = value end
  end
end

---------------------------------------------------------------------------
-- XOR on small non-negative integers, whatever this Lua provides.
---------------------------------------------------------------------------

local function xor_native()
  local compile = loadstring or load
  if not compile then return nil end
  local ok, chunk = pcall(compile, 'return function(a, b) return a ~ b end')
  if not ok or type(chunk) ~= 'function' then return nil end
  local ok2, fn = pcall(chunk)
  if ok2 and type(fn) == 'function' then return fn end
  return nil
end

local function xor_arith(a, b)
  local result, place = 0, 1
  while a > 0 or b > 0 do
    local abit, bbit = a % 2, b % 2
    if abit ~= bbit then result = result + place end
    a = math.floor(a / 2)
    b = math.floor(b / 2)
    place = place * 2
  end
  return result
end

local function pick_xor(wanted)
  local candidates = {
    native = function() return xor_native() end,
    bit32 = function() return (type(bit32) == 'table' and bit32.bxor) or nil end,
    bit = function() return (type(bit) == 'table' and bit.bxor) or nil end,
    arith = function() return xor_arith end,
  }
  if wanted and candidates[wanted] then
    local fn = candidates[wanted]()
    if fn then return fn, wanted end
    error('bcsim.lua: bitlib=' .. wanted .. ' is not available in ' .. tostring(_VERSION))
  end
  for _, name in ipairs({ 'native', 'bit32', 'bit', 'arith' }) do
    local fn = candidates[name]()
    if fn then return fn, name end
  end
end

local bxor, xor_name = pick_xor(options.bitlib)

---------------------------------------------------------------------------
-- The codec: AlbyRules and the datagram parser (mirrors src/core/codec/).
-- Byte arrays are Lua tables indexed from 0, like the TypeScript Uint8Arrays.
---------------------------------------------------------------------------

local codec = { xor_name = xor_name, lua_version = _VERSION }

-- "Al", "by", "Ru", "le", "s!": the key as five big-endian 16-bit words.
local KEY_WORDS = { 0x416c, 0x6279, 0x5275, 0x6c65, 0x7321 }

-- A new table with bytes 1.. en- or decrypted; byte 0 (the peer id) is copied.
-- The state resets per datagram and the plaintext is fed back (docs/sources.md 22).
-- With `limit`, only the first `limit` bytes are done (a cheap look at the header).
function codec.crypt(input, n, decrypting, limit)
  local out = {}
  if n == 0 then return out end
  out[0] = input[0]
  local fed, x, s = 0, 0, 0
  local last = n - 1
  if limit and limit < n then last = limit - 1 end
  for pos = 1, last do
    local feed_word = fed * 256 + fed
    local previous, acc = 0, 0
    for i = 0, 4 do
      local w = bxor(bxor(KEY_WORDS[i + 1], feed_word), previous)
      local c1 = ((x + i) * 0x4e35) % 65536
      local c2 = (w * 0x015a) % 65536
      local d = (c1 + c2 + s) % 65536
      s = c2
      w = (w * 0x4e35 + 1) % 65536
      x = d
      acc = bxor(acc, bxor(w, d))
      previous = w
    end
    local keystream = bxor(math.floor(acc / 256), acc % 256)
    local byte = bxor(input[pos], keystream)
    out[pos] = byte
    if decrypting then fed = bxor(fed, byte) else fed = bxor(fed, input[pos]) end
  end
  return out
end

codec.TYPE_NAMES = {
  [0x00] = 'data', [0x01] = 'ack', [0x02] = 'connect', [0x03] = 'connectAck',
  [0x04] = 'boot', [0x05] = 'disconnect', [0x32] = 'game',
}
local CLIENT_CONNECT_LABEL = 'connect (type 0x03 as captured)'

local function hex2(value) return string.format('%02X', value % 256) end
codec.hex2 = hex2

-- Bit `mask` (a power of two) of value.
local function has_bit(value, mask) return math.floor(value / mask) % 2 == 1 end

local function data_header_bytes(reliable, fragment, frag_index)
  local size = 3
  if reliable then size = size + 2 end
  if fragment then
    if frag_index == 0 then size = size + 2 else size = size + 1 end
  end
  return size
end

-- One message at `offset`, never reading at or past `finish`. Returns the message
-- table, or nil and an error {code, offset, reason} (message.ts readMessage).
function codec.read_message(b, offset, finish)
  local function fail(code, at, reason) return nil, { code = code, offset = at, reason = reason } end
  if offset >= finish then return fail('missing-messages', offset, 'no bytes left for this message') end
  local mtype = b[offset]
  if codec.TYPE_NAMES[mtype] == nil then return fail('unknown-type', offset, 'unknown message type 0x' .. hex2(mtype)) end
  local remaining = finish - offset

  if mtype == 0x01 then
    if remaining < 4 then return fail('truncated-message', offset, 'ack needs 4 bytes, ' .. remaining .. ' remain') end
    local flags = b[offset + 3]
    local fragment = has_bit(flags, 0x01)
    if fragment and remaining < 5 then
      return fail('truncated-message', offset, 'fragment ack needs 5 bytes, ' .. remaining .. ' remain')
    end
    return {
      offset = offset, type = 0x01, size = fragment and 5 or 4,
      seq = b[offset + 1] + b[offset + 2] * 256, flags = flags,
      fragment = fragment, low_type = has_bit(flags, 0x02),
      frag_index = fragment and b[offset + 4] or nil,
    }
  end

  if remaining < 3 then return fail('truncated-message', offset, 'message header needs 3 bytes, ' .. remaining .. ' remain') end
  local flags_len = b[offset + 1] + b[offset + 2] * 256
  local is_game = mtype == 0x32
  local reliable = has_bit(flags_len, 0x8000)
  local ordered = has_bit(flags_len, 0x4000)
  local fragment = is_game and has_bit(flags_len, 0x2000)
  local size = flags_len % (is_game and 0x2000 or 0x4000)
  if size > remaining then
    return fail('length-past-end', offset, 'length ' .. size .. ' runs past the end (' .. remaining .. ' bytes remain)')
  end
  local pos = offset + 3
  local fixed_header = data_header_bytes(reliable, fragment, fragment and 1 or nil)
  if size < fixed_header then
    return fail('length-below-header', offset, 'length ' .. size .. ' is smaller than its ' .. fixed_header .. '-byte header')
  end
  local seq, frag_index, frag_count
  if reliable then
    seq = b[pos] + b[pos + 1] * 256
    pos = pos + 2
  end
  if fragment then
    frag_index = b[pos]
    pos = pos + 1
    if frag_index == 0 then
      if size < fixed_header + 1 then
        return fail('length-below-header', offset, 'length ' .. size .. ' is smaller than its ' .. (fixed_header + 1) .. '-byte header')
      end
      frag_count = b[pos]
      pos = pos + 1
    end
  end
  return {
    offset = offset, type = mtype, size = size, flags_len = flags_len,
    reliable = reliable, ordered = ordered, fragment = fragment,
    seq = seq, frag_index = frag_index, frag_count = frag_count,
    payload_offset = pos, payload_length = offset + size - pos,
  }
end

-- A whole datagram (datagram.ts decodeDatagram): {ok, peer_id, msg_count,
-- messages, error}; on error `messages` holds what decoded before it.
function codec.parse(b, n)
  if n < 2 then
    return {
      ok = false, peer_id = (n > 0) and b[0] or nil, messages = {},
      error = { code = 'truncated-header', offset = n, reason = 'datagram header needs 2 bytes, got ' .. n },
    }
  end
  local result = { ok = true, peer_id = b[0], msg_count = b[1], messages = {} }
  local pos = 2
  for i = 0, result.msg_count - 1 do
    if pos >= n then
      result.ok = false
      result.error = { code = 'missing-messages', offset = pos,
        reason = 'msg_count is ' .. result.msg_count .. ' but the bytes hold only ' .. i .. ' messages' }
      return result
    end
    local message, err = codec.read_message(b, pos, n)
    if not message then
      result.ok = false
      result.error = err
      return result
    end
    result.messages[#result.messages + 1] = message
    pos = pos + message.size
  end
  if pos ~= n then
    result.ok = false
    result.error = { code = 'trailing-bytes', offset = pos,
      reason = (n - pos) .. ' trailing bytes after ' .. result.msg_count .. ' messages' }
  end
  return result
end

---------------------------------------------------------------------------
-- Wire forms that real reimplementations send (docs/sources.md 30; mirrors
-- src/core/codec/dialect.ts, with the same codes, offsets and wording): read only
-- when the stock reading fails, except ACK flags with bits outside 0-1, which
-- the stock reading takes and which are still named.
---------------------------------------------------------------------------

local ONE_BYTE_TYPES = { [0x00] = true, [0x02] = true, [0x03] = true, [0x04] = true, [0x05] = true, [0x06] = true }
codec.MAX_DIALECT_STEPS = 4096

-- The message at `offset` as [type][length u8][flags u8][seq if flags bit 7][payload]
-- (or [type][02]), when that reading differs from the stock one; else nil.
function codec.read_one_byte_form(b, offset, finish)
  local type_byte = b[offset]
  if not ONE_BYTE_TYPES[type_byte] or finish - offset < 2 then return nil end
  local size = b[offset + 1]
  if size < 2 or size > finish - offset then return nil end
  local message = {
    offset = offset, type = (type_byte == 0x06) and 0x05 or type_byte, size = size, fragment = false,
    form = { type_byte = type_byte, length_byte = size },
  }
  if size == 2 then
    message.reliable, message.ordered = false, false
    message.payload_offset, message.payload_length = offset + 2, 0
    return message
  end
  local flags = b[offset + 2]
  -- The same bytes in the stock form: the stock reading covers them.
  if flags % 64 == 0 and type_byte ~= 0x06 then return nil end
  local reliable = has_bit(flags, 0x80)
  local header = reliable and 5 or 3
  if size < header then return nil end
  message.form.flags_byte = flags
  message.reliable, message.ordered = reliable, has_bit(flags, 0x40)
  if reliable then message.seq = b[offset + 3] + b[offset + 4] * 256 end
  message.payload_offset, message.payload_length = offset + header, size - header
  return message
end

local function ack_deviation(message)
  return {
    offset = message.offset + 3, code = 'ack-flag-bits',
    note = 'deviation: ACK flags 0x' .. hex2(message.flags) .. ' set bits outside 0-1; stock uses bit 0 (fragment) and bit 1 (low type) only',
  }
end

local function deviations_of(peer_id, messages)
  local out = {}
  for _, m in ipairs(messages) do
    local form = m.form
    if m.type == 0x01 then
      if m.flags % 4 ~= m.flags then out[#out + 1] = ack_deviation(m) end
    elseif form then
      if form.type_byte == 0x06 then
        out[#out + 1] = { offset = m.offset, code = 'disconnect-type-06', note = "deviation: type 0x06 Disconnect; stock's Disconnect is type 0x05" }
      end
      if form.flags_byte == nil then
        out[#out + 1] = { offset = m.offset + 1, code = 'two-byte-message',
          note = "deviation: two-byte message (one-byte length 2, no flags byte); stock's smallest message is 3 bytes, [type][flags_len u16]" }
      elseif form.flags_byte % 64 ~= 0 then
        out[#out + 1] = { offset = m.offset + 2, code = 'one-byte-length',
          note = 'deviation: one-byte length ' .. form.length_byte .. ' and flags byte 0x' .. hex2(form.flags_byte) ..
            '; stock reads flags_len 0x' .. hex2(form.flags_byte) .. hex2(form.length_byte) .. ' as length ' .. ((form.flags_byte % 64) * 256 + form.length_byte) }
      end
      if peer_id == 0xFF and m.type == 0x03 and not m.reliable then
        out[#out + 1] = { offset = m.offset + ((form.flags_byte == nil) and 1 or 2), code = 'connect-without-seq',
          note = "deviation: Connect without the reliable bit or a seq; stock's is reliable+ordered, seq 0 on a new connection (read as that)" }
      end
    end
  end
  return out
end

-- codec.parse, then the tolerant reading (backtracking, strict first, at most
-- MAX_DIALECT_STEPS steps). Adds `strict` and `deviations`; when neither reads,
-- the strict result comes back unchanged.
function codec.parse_dialect(b, n)
  local strict = codec.parse(b, n)
  strict.deviations = {}
  if strict.ok then
    strict.strict = true
    strict.deviations = deviations_of(strict.peer_id, strict.messages)
    return strict
  end
  strict.strict = false
  if n < 2 then return strict end
  local count, messages, steps = b[1], {}, 0
  local function walk(pos, i)
    steps = steps + 1
    if steps > codec.MAX_DIALECT_STEPS then return false end
    if i == count then return pos == n end
    if pos >= n then return false end
    for _, read in ipairs({ codec.read_message, codec.read_one_byte_form }) do
      local m = read(b, pos, n)
      if m then
        messages[i + 1] = m
        if walk(pos + m.size, i + 1) then return true end
        messages[i + 1] = nil
      end
    end
    return false
  end
  if not walk(2, 0) then return strict end
  return { ok = true, strict = false, peer_id = b[0], msg_count = count, messages = messages, deviations = deviations_of(b[0], messages) }
end

function codec.from_hex(text)
  local b, n = {}, 0
  for pair in text:gsub('[^%x]', ''):gmatch('%x%x') do
    b[n] = tonumber(pair, 16)
    n = n + 1
  end
  return b, n
end

function codec.to_hex(b, n)
  local parts = {}
  for i = 0, n - 1 do parts[#parts + 1] = hex2(b[i]) end
  return table.concat(parts, ' ')
end

if not Proto then return codec end

---------------------------------------------------------------------------
-- Wireshark
---------------------------------------------------------------------------

local DEFAULT_PORT = 22101
local MAX_DATAGRAM_BYTES = 512

local bc = Proto('bc', 'Bridge Commander 1.1 transport (bcsim)')

local OPCODES = {
  [0x00] = 'Settings', [0x01] = 'GameInit', [0x03] = 'ObjCreate', [0x06] = 'PythonEvent',
  [0x07] = 'StartFiring', [0x08] = 'StopFiring', [0x0F] = 'Explosion', [0x13] = 'SubsysStatus',
  [0x15] = 'CollisionEffect', [0x17] = 'DeletePlayerUI', [0x19] = 'TorpedoFire', [0x1A] = 'BeamFire',
  [0x1C] = 'StateUpdate', [0x20] = 'ChecksumRequest', [0x21] = 'ChecksumResponse',
  [0x28] = 'JoinMarker', [0x2A] = 'NewPlayerInGame', [0x2C] = 'Chat', [0x35] = 'MissionInit',
  [0x36] = 'Score',
}

local F = {
  reading = ProtoField.string('bc.reading', 'Reading', base.ASCII, 'encrypted (AlbyRules, decrypted here) or plaintext'),
  other_reading_parses = ProtoField.bool('bc.other_reading_parses', 'Other reading parses too'),
  ok = ProtoField.bool('bc.ok', 'Parses'),
  length = ProtoField.uint16('bc.length', 'Datagram length', base.DEC),
  peer_id = ProtoField.uint8('bc.peer_id', 'Peer id', base.HEX),
  msg_count = ProtoField.uint8('bc.msg_count', 'Message count', base.DEC),
  error_code = ProtoField.string('bc.error.code', 'Error code'),
  error_offset = ProtoField.uint16('bc.error.offset', 'Error offset', base.DEC),
  error_reason = ProtoField.string('bc.error.reason', 'Error reason'),
  message = ProtoField.none('bc.message', 'Message'),
  offset = ProtoField.uint16('bc.offset', 'Offset', base.DEC),
  type = ProtoField.uint8('bc.type', 'Type', base.HEX, codec.TYPE_NAMES),
  name = ProtoField.string('bc.name', 'Name'),
  len = ProtoField.uint16('bc.len', 'Length', base.DEC, nil, nil, 'Total message size in bytes, type byte included (JSON: size)'),
  flags_len = ProtoField.uint16('bc.flags_len', 'Flags/length', base.HEX),
  reliable = ProtoField.bool('bc.reliable', 'Reliable'),
  ordered = ProtoField.bool('bc.ordered', 'Ordered'),
  fragment = ProtoField.bool('bc.fragment', 'Fragment'),
  seq = ProtoField.uint16('bc.seq', 'Sequence number', base.DEC),
  frag_index = ProtoField.uint8('bc.frag_index', 'Fragment index', base.DEC),
  frag_count = ProtoField.uint8('bc.frag_count', 'Fragment count', base.DEC),
  payload = ProtoField.bytes('bc.payload', 'Payload'),
  payload_len = ProtoField.uint16('bc.payload_len', 'Payload length', base.DEC),
  opcode = ProtoField.uint8('bc.opcode', 'Game opcode', base.HEX, OPCODES),
  ack_seq = ProtoField.uint16('bc.ack.seq', 'Acknowledged sequence number', base.DEC),
  ack_flags = ProtoField.uint8('bc.ack.flags', 'ACK flags', base.HEX),
  ack_fragment = ProtoField.bool('bc.ack.fragment', 'Fragment ACK'),
  ack_low_type = ProtoField.bool('bc.ack.low_type', 'Low-type ACK (type < 0x32)'),
  ack_frag_index = ProtoField.uint8('bc.ack.frag_index', 'Acknowledged fragment index', base.DEC),
  retransmit = ProtoField.bool('bc.retransmit', 'Retransmit', base.NONE, nil, nil, 'A reliable data message (or fragment) sent again'),
  retransmit_kind = ProtoField.string('bc.retransmit.kind', 'Retransmit kind', base.ASCII, 'fragment or reliable'),
  retransmit_first = ProtoField.framenum('bc.retransmit.first_frame', 'First sent in frame', base.NONE,
    frametype and frametype.RETRANS_PREV or nil),
  retransmit_number = ProtoField.uint32('bc.retransmit.number', 'Retransmit number', base.DEC, nil, nil,
    'Sends before this one: the #n of bcsim trace\'s [RETRANSMIT #n]'),
  ack_sends = ProtoField.uint32('bc.ack.sends', 'ACK send number', base.DEC, nil, nil,
    'Which send of this ACK this is, by this sender, since the message it acknowledges was first sent (1: the first)'),
  ack_repeat = ProtoField.bool('bc.ack.repeat', 'ACK repeat', base.NONE, nil, nil, 'The same ACK sent again by the same sender'),
  ack_first = ProtoField.framenum('bc.ack.first_frame', 'ACK first sent in frame', base.NONE,
    frametype and frametype.DUP_ACK or nil),
  ack_dead_zone = ProtoField.bool('bc.ack.dead_zone', 'Dead-zone ACK (pass 2)', base.NONE, nil, nil,
    'The 4th to 9th send of a stock two-pass ACK-outbox entry: only pass 2 sends it (preference bc.dead_zone)'),
  strict = ProtoField.bool('bc.strict', 'Stock form', base.NONE, nil, nil, 'The datagram reads in the stock form (else only in the forms of docs/sources.md 30)'),
  length_u8 = ProtoField.uint8('bc.length_u8', 'Length (one byte)', base.DEC, nil, nil, 'A reimplementation\'s one-byte total length (docs/sources.md 30)'),
  flags_u8 = ProtoField.uint8('bc.flags_u8', 'Flags byte', base.HEX, nil, nil, 'A reimplementation\'s flags byte after a one-byte length (docs/sources.md 30)'),
  deviation = ProtoField.string('bc.deviation', 'Deviation from the stock form'),
  deviation_code = ProtoField.string('bc.deviation.code', 'Deviation code'),
  deviation_offset = ProtoField.uint16('bc.deviation.offset', 'Deviation offset', base.DEC),
  dropped = ProtoField.bool('bc.dropped', 'Dropped by bcsim', base.NONE, nil, nil, 'The packet comment says bcsim\'s simulated link (or its proxy) dropped this datagram: it never arrived'),
  dropped_cause = ProtoField.string('bc.dropped.cause', 'Drop cause'),
}
local field_list = {}
for _, field in pairs(F) do field_list[#field_list + 1] = field end
bc.fields = field_list

local E = {
  malformed = ProtoExpert.new('bc.malformed', 'Malformed BC datagram', expert.group.MALFORMED, expert.severity.ERROR),
  fragment_retransmission = ProtoExpert.new('bc.fragment_retransmission', 'Fragment retransmission',
    expert.group.SEQUENCE, expert.severity.WARN),
  reliable_retransmission = ProtoExpert.new('bc.reliable_retransmission', 'Reliable message retransmission',
    expert.group.SEQUENCE, expert.severity.NOTE),
  ack_repeat = ProtoExpert.new('bc.ack_repeat', 'ACK repeat', expert.group.SEQUENCE, expert.severity.NOTE),
  ack_dead_zone = ProtoExpert.new('bc.ack_dead_zone', 'Dead-zone ACK (pass 2)', expert.group.SEQUENCE, expert.severity.NOTE),
  plaintext = ProtoExpert.new('bc.plaintext', 'Plaintext datagram (not AlbyRules-encrypted)',
    expert.group.PROTOCOL, expert.severity.CHAT),
  oversize = ProtoExpert.new('bc.oversize', 'Datagram over the 512-byte limit',
    expert.group.PROTOCOL, expert.severity.WARN),
  deviation = ProtoExpert.new('bc.deviation.expert', 'Wire form of a reimplementation (docs/sources.md 30)',
    expert.group.PROTOCOL, expert.severity.NOTE),
  dropped = ProtoExpert.new('bc.dropped.expert', "Dropped by bcsim's link", expert.group.SEQUENCE, expert.severity.WARN),
}
bc.experts = { E.malformed, E.fragment_retransmission, E.reliable_retransmission, E.ack_repeat, E.ack_dead_zone, E.plaintext, E.oversize, E.deviation, E.dropped }

-- Expert summaries name the kind only (and the cause or code where there are a
-- few): Wireshark's Expert Information groups items by summary, so a per-item
-- detail (a seq, a frame) would make one group per item. The details are in the tree.

-- The packet comment (frame.comment) of a capture bcsim wrote: `DROPPED by link:
-- <cause> | …` on a datagram its simulated link dropped, `DROPPED (<cause>)` from
-- its proxy. Wireshark before 1.10 has no such field: then nothing is marked.
local comment_field = (function()
  local ok, field = pcall(Field.new, 'frame.comment')
  return ok and field or nil
end)()

local function drop_cause()
  if comment_field == nil then return nil end
  for _, info in ipairs({ comment_field() }) do
    local text = tostring(info.value)
    local cause = text:match('^DROPPED by link: ([%w%-]+)') or text:match('^DROPPED %(([^)]*)%)')
    if cause then return cause end
  end
  return nil
end

local READING_AUTO, READING_ENCRYPTED, READING_PLAINTEXT = 1, 2, 3
bc.prefs.port = Pref.uint('UDP port', DEFAULT_PORT, 'UDP port of the BC transport (the heuristic covers the others)')
bc.prefs.reading = Pref.enum('Reading', READING_AUTO,
  'Automatic: decrypt, and fall back to plaintext when only the plaintext parses', {
    { 1, 'Automatic', READING_AUTO },
    { 2, 'Encrypted', READING_ENCRYPTED },
    { 3, 'Plaintext', READING_PLAINTEXT },
  }, false)
bc.prefs.dead_zone = Pref.bool('Mark dead-zone ACKs', true,
  'Call an ACK entry\'s 4th to 9th send a dead-zone (pass 2) ACK, as the stock two-pass ACK-outbox sends them (docs/sources.md 8-10); turn off for a peer with another ACK-outbox')

-- Per-capture state, reset by init() whenever a file is (re)loaded.
-- frames[n]: what the first pass decided for frame n (reading, retransmit and ACK send marks),
-- so that later passes (and the GUI's random access) show the same.
-- senders[key]: per direction (src endpoint > dst endpoint), the reliable data
-- messages and ACK entries seen so far. conversations[key]: the last reading that
-- was unambiguous in that conversation, used when both readings parse.
local state

local function reset_state()
  state = { frames = {}, senders = {}, conversations = {} }
end
reset_state()
bc.init = reset_state

local function tvb_bytes(tvb)
  local n = tvb:len()
  local b = {}
  local raw = tvb:raw(0, n)
  for i = 1, n do b[i - 1] = raw:byte(i) end
  return b, n
end

local function endpoint(address, port) return tostring(address) .. '/' .. tostring(port) end

local function direction_keys(pinfo)
  local src = endpoint(pinfo.src, pinfo.src_port)
  local dst = endpoint(pinfo.dst, pinfo.dst_port)
  local conversation = (src < dst) and (src .. '|' .. dst) or (dst .. '|' .. src)
  return src .. '>' .. dst, dst .. '>' .. src, conversation
end

-- Both readings of the wire bytes.
local function readings(wire, n)
  local plain = codec.parse_dialect(wire, n)
  local decrypted = codec.crypt(wire, n, true)
  local enc = codec.parse_dialect(decrypted, n)
  return { bytes = decrypted, parsed = enc }, { bytes = wire, parsed = plain }
end

-- How well a reading parses: 2 in the stock form, 1 only in the forms of docs/sources.md 30; 0 not at all.
local function score(reading)
  if not reading.parsed.ok then return 0 end
  return reading.parsed.strict and 2 or 1
end

-- 'encrypted' or 'plaintext'. Automatic: whichever parses better; on a tie, the
-- conversation's last unambiguous reading, else encrypted (the wire default).
local function choose_reading(enc, plain, conversation)
  local pref = bc.prefs.reading
  if pref == READING_ENCRYPTED then return 'encrypted' end
  if pref == READING_PLAINTEXT then return 'plaintext' end
  if score(enc) > score(plain) then return 'encrypted' end
  if score(plain) > score(enc) then return 'plaintext' end
  return state.conversations[conversation] or 'encrypted'
end

local function payload_string(bytes, message)
  local parts = {}
  for i = message.payload_offset, message.payload_offset + message.payload_length - 1 do
    parts[#parts + 1] = string.char(bytes[i])
  end
  return table.concat(parts)
end

local function key_part(value) if value == nil then return '-' end return tostring(value) end

-- First pass only: which messages of this frame were sent before by the same sender.
-- A malformed datagram is left out: it neither marks nor is remembered.
local function analyse(frame_number, parsed, bytes, forward, reverse)
  local marks = {}
  if not parsed.ok then return marks end
  local sender = state.senders[forward]
  if not sender then
    sender = { data = {}, acks = {} }
    state.senders[forward] = sender
  end
  for index, message in ipairs(parsed.messages) do
    if message.type == 0x01 then
      local key = message.seq .. '|' .. message.flags .. '|' .. key_part(message.frag_index)
      local seen = sender.acks[key]
      if not seen then
        seen = { first = frame_number, count = 0 }
        sender.acks[key] = seen
      end
      seen.count = seen.count + 1
      marks[index] = { kind = 'ack', first = seen.first, sends = seen.count }
    elseif message.reliable then
      local category = (message.type < 0x32) and 'low' or 'high'
      local key = category .. '|' .. message.seq .. '|' .. key_part(message.frag_index)
      local payload = payload_string(bytes, message)
      local seen = sender.data[key]
      if seen and seen.payload == payload and seen.frag_count == message.frag_count and seen.type == message.type then
        seen.count = seen.count + 1
        marks[index] = { kind = message.fragment and 'fragment' or 'reliable', first = seen.first, number = seen.count }
      else
        -- A new message with this seq (the first, or one after the seq wrapped):
        -- the receiver's ACKs of it are new ACKs again.
        sender.data[key] = { first = frame_number, count = 0, payload = payload, frag_count = message.frag_count, type = message.type }
        local receiver = state.senders[reverse]
        if receiver then
          local low = (category == 'low') and 2 or 0
          for _, flags in ipairs({ low, low + 1 }) do
            receiver.acks[message.seq .. '|' .. flags .. '|-'] = nil
            receiver.acks[message.seq .. '|' .. flags .. '|' .. key_part(message.frag_index)] = nil
          end
        end
      end
    end
  end
  return marks
end

local function peer_label(peer_id)
  if peer_id == 0x01 then return 'server' end
  if peer_id == 0xFF then return 'unassigned' end
  if peer_id == 0 then return 'invalid' end
  return 'client slot ' .. peer_id
end

-- `bcsim decode --json`'s name: the client's connect request (type 0x03 from an unassigned peer) is `connect`.
local function message_name(message, peer_id)
  if message.type == 0x03 and peer_id == 0xFF then return 'connect' end
  return codec.TYPE_NAMES[message.type]
end

local function describe(message, peer_id)
  if message.type == 0x01 then
    local text = 'ack seq=' .. message.seq
    if message.frag_index ~= nil then text = text .. ' frag=' .. message.frag_index end
    if message.low_type then text = text .. ' low' end
    return text
  end
  local name = codec.TYPE_NAMES[message.type]
  if message.type == 0x03 and peer_id == 0xFF then name = CLIENT_CONNECT_LABEL end
  if message.form and message.form.type_byte ~= message.type then name = name .. ' (type 0x' .. hex2(message.form.type_byte) .. ')' end
  local flags = {}
  if message.reliable then flags[#flags + 1] = 'reliable' end
  if message.ordered then flags[#flags + 1] = 'ordered' end
  if message.fragment then flags[#flags + 1] = 'fragment' end
  local text = name .. ' ' .. ((#flags > 0) and table.concat(flags, '+') or 'unreliable')
  if message.seq ~= nil then text = text .. ' seq=' .. message.seq end
  if message.frag_index ~= nil then
    text = text .. ' frag=' .. message.frag_index
    if message.frag_count ~= nil then text = text .. '/' .. message.frag_count end
  end
  return text .. ' len=' .. message.size
end

local RETRANSMIT_TEXT = { fragment = 'Fragment retransmission', reliable = 'Reliable message retransmission' }
local RETRANSMIT_EXPERT = { fragment = E.fragment_retransmission, reliable = E.reliable_retransmission }

-- The stock two-pass ACK-outbox (docs/sources.md 8-10): pass 1 sends an entry 3 times,
-- pass 2 its 4th to 9th sends, and the 9th frees it; the next send is a new entry's first.
local ACK_PASS_ONE_SENDS, ACK_FREE_AT_SENDS = 3, 9

local function dead_zone(mark)
  return bc.prefs.dead_zone and (mark.sends - 1) % ACK_FREE_AT_SENDS >= ACK_PASS_ONE_SENDS
end

-- The words of `bcsim trace` (src/model/trace/format.ts): [RETRANSMIT #n] on data
-- sent again, [DEAD-ZONE ACK, pass 2] on a pass-2 ACK; an ACK sent again is a repeat.
local function tag(mark)
  if not mark then return nil end
  if mark.kind ~= 'ack' then return 'RETRANSMIT #' .. mark.number end
  if dead_zone(mark) then return 'DEAD-ZONE ACK, pass 2' end
  if mark.sends > 1 then return 'ACK REPEAT, send ' .. mark.sends end
  return nil
end

local function add_retransmit(tree, range, message, mark)
  local what = 'seq ' .. message.seq .. (message.frag_index ~= nil and (' fragment ' .. message.frag_index) or '')
  local item = tree:add(F.retransmit, range, true)
  item:set_text(RETRANSMIT_TEXT[mark.kind] .. ' #' .. mark.number .. ': ' .. what .. ', first sent in frame ' ..
    mark.first .. ', sent ' .. mark.number .. ' time' .. (mark.number == 1 and '' or 's') .. ' before')
  item:set_generated()
  tree:add(F.retransmit_kind, range, mark.kind):set_generated()
  tree:add(F.retransmit_first, range, mark.first):set_generated()
  tree:add(F.retransmit_number, range, mark.number):set_generated()
  tree:add_tvb_expert_info(RETRANSMIT_EXPERT[mark.kind], range, RETRANSMIT_TEXT[mark.kind])
end

local function add_ack_sends(tree, range, mark)
  tree:add(F.ack_sends, range, mark.sends):set_generated()
  if mark.sends > 1 then
    local item = tree:add(F.ack_repeat, range, true)
    item:set_text('ACK repeat: send ' .. mark.sends .. ', first sent in frame ' .. mark.first)
    item:set_generated()
    tree:add(F.ack_first, range, mark.first):set_generated()
  end
  if dead_zone(mark) then
    tree:add(F.ack_dead_zone, range, true):set_generated()
    tree:add_tvb_expert_info(E.ack_dead_zone, range, 'Dead-zone ACK (pass 2)')
  elseif mark.sends > 1 then
    tree:add_tvb_expert_info(E.ack_repeat, range, 'ACK repeat')
  end
end


-- A data message's payload (a zero-length range at its place when empty) and its length.
local function add_payload(item, tvb, message, range)
  if message.payload_length > 0 then
    item:add(F.payload, tvb(message.payload_offset, message.payload_length))
  else
    item:add(F.payload, tvb(message.payload_offset, 0)):set_text('Payload: (empty)')
  end
  item:add(F.payload_len, range, message.payload_length):set_generated()
end

local function add_message(tree, tvb, message, index, peer_id, bytes, mark)
  local range = tvb(message.offset, message.size)
  local label = describe(message, peer_id)
  local item = tree:add(F.message, range)
  local mark_tag = tag(mark)
  item:set_text('Message ' .. index .. ': ' .. label .. (mark_tag and ' [' .. mark_tag .. ']' or ''))
  item:add(F.offset, range, message.offset):set_generated()
  item:add(F.type, tvb(message.offset, 1))
  item:add(F.name, range, message_name(message, peer_id)):set_generated()
  if message.type == 0x01 then
    item:add(F.len, range, message.size):set_generated()
    item:add_le(F.ack_seq, tvb(message.offset + 1, 2))
    local flags_item = item:add(F.ack_flags, tvb(message.offset + 3, 1))
    flags_item:add(F.ack_fragment, tvb(message.offset + 3, 1), message.fragment)
    flags_item:add(F.ack_low_type, tvb(message.offset + 3, 1), message.low_type)
    if message.frag_index ~= nil then item:add(F.ack_frag_index, tvb(message.offset + 4, 1)) end
  elseif message.form then
    -- docs/sources.md 30: [type][length u8][flags u8], or [type][02] with no flags byte.
    local length_range = tvb(message.offset + 1, 1)
    item:add(F.length_u8, length_range)
    item:add(F.len, length_range, message.size)
    local pos = message.offset + 2
    if message.form.flags_byte ~= nil then
      local flags_range = tvb(pos, 1)
      local flags_item = item:add(F.flags_u8, flags_range)
      flags_item:add(F.reliable, flags_range, message.reliable)
      flags_item:add(F.ordered, flags_range, message.ordered)
      pos = pos + 1
    else
      item:add(F.reliable, length_range, false):set_generated()
      item:add(F.ordered, length_range, false):set_generated()
    end
    item:add(F.fragment, range, false):set_generated()
    if message.reliable then item:add_le(F.seq, tvb(pos, 2)) end
    add_payload(item, tvb, message, range)
  else
    local word = tvb(message.offset + 1, 2)
    local flags_item = item:add_le(F.flags_len, word)
    flags_item:add(F.reliable, word, message.reliable)
    flags_item:add(F.ordered, word, message.ordered)
    local fragment_item = flags_item:add(F.fragment, word, message.fragment)
    if message.type ~= 0x32 then
      fragment_item:set_generated()
      fragment_item:append_text(' (no fragment bit: bit 13 is length for type 0x' .. hex2(message.type) .. ')')
    end
    flags_item:add(F.len, word, message.size)
    local pos = message.offset + 3
    if message.reliable then
      item:add_le(F.seq, tvb(pos, 2))
      pos = pos + 2
    end
    if message.fragment then
      item:add(F.frag_index, tvb(pos, 1))
      pos = pos + 1
      if message.frag_index == 0 then
        item:add(F.frag_count, tvb(pos, 1))
        pos = pos + 1
      end
    end
    add_payload(item, tvb, message, range)
    if message.type == 0x32 and message.payload_length > 0 and (message.frag_index == nil or message.frag_index == 0) then
      item:add(F.opcode, tvb(message.payload_offset, 1))
    end
  end
  if mark and mark.kind == 'ack' then
    add_ack_sends(item, range, mark)
  elseif mark then
    add_retransmit(item, range, message, mark)
  end
  return item
end

-- One item and one expert note per deviation, under the message it is in (docs/sources.md 30).
local function add_deviation(tree, tvb, deviation)
  local at = tvb(deviation.offset, 1)
  local item = tree:add(F.deviation, at, deviation.note)
  item:set_text('@' .. deviation.offset .. ' ' .. deviation.note)
  item:add(F.deviation_code, at, deviation.code):set_generated()
  item:add(F.deviation_offset, at, deviation.offset):set_generated()
  item:add_tvb_expert_info(E.deviation, at, 'Wire form of a reimplementation (docs/sources.md 30): ' .. deviation.code)
end

local function dissect(tvb, pinfo, tree, wire, n)
  local forward, reverse, conversation = direction_keys(pinfo)
  local enc, plain = readings(wire, n)
  -- The first pass (not pinfo.visited) decides the reading and the marks, in frame
  -- order, and keeps them by frame number; later passes and random access reuse them.
  -- A frame first seen on a later pass gets a reading but changes no state.
  local frame = state.frames[pinfo.number]
  if not frame then
    local reading = choose_reading(enc, plain, conversation)
    local chosen = (reading == 'encrypted') and enc or plain
    local other = (reading == 'encrypted') and plain or enc
    if pinfo.visited then
      frame = { reading = reading, marks = {} }
    else
      if score(chosen) > score(other) then state.conversations[conversation] = reading end
      frame = { reading = reading, marks = analyse(pinfo.number, chosen.parsed, chosen.bytes, forward, reverse) }
      state.frames[pinfo.number] = frame
    end
  end
  local reading = frame.reading
  local chosen = (reading == 'encrypted') and enc or plain
  local other = (reading == 'encrypted') and plain or enc
  local parsed = chosen.parsed

  local data = tvb
  if reading == 'encrypted' then
    local decrypted = ByteArray.new()
    decrypted:set_size(n)
    for i = 0, n - 1 do decrypted:set_index(i, chosen.bytes[i]) end
    data = decrypted:tvb('Decrypted BC')
  end

  pinfo.cols.protocol = 'BC'
  local summary = {}
  for index, message in ipairs(parsed.messages) do
    local text = describe(message, parsed.peer_id)
    local mark_tag = tag(frame.marks[index])
    if mark_tag then text = text .. ' [' .. mark_tag .. ']' end
    summary[#summary + 1] = text
  end
  local direction = (parsed.peer_id == 0x01) and 'S>C' or 'C>S'
  local info = direction .. ' peer=0x' .. hex2(wire[0] or 0) .. ': ' .. table.concat(summary, ', ')
  if not parsed.ok then info = info .. (#summary > 0 and ', ' or '') .. '[MALFORMED: ' .. parsed.error.reason .. ']' end
  if parsed.ok and #parsed.deviations > 0 then
    local codes = {}
    for _, d in ipairs(parsed.deviations) do codes[#codes + 1] = d.code end
    info = info .. ' [DEVIATION: ' .. table.concat(codes, ', ') .. ']'
  end
  if reading == 'plaintext' then info = info .. ' [plaintext]' end
  local dropped = drop_cause()
  if dropped then info = '[DROPPED: ' .. dropped .. '] ' .. info end
  pinfo.cols.info = info

  local root = tree:add(bc, data(0, n))
  root:append_text(', ' .. reading .. ', ' .. #parsed.messages .. ' message' .. (#parsed.messages == 1 and '' or 's'))
  if dropped then
    root:append_text(', DROPPED (' .. dropped .. ')')
    root:add(F.dropped, data(0, n), true):set_generated()
    root:add(F.dropped_cause, data(0, n), dropped):set_generated()
    root:add_proto_expert_info(E.dropped, "Dropped by bcsim's link: " .. dropped)
  end
  root:add(F.reading, data(0, n), reading):set_generated()
  root:add(F.other_reading_parses, data(0, n), other.parsed.ok):set_generated()
  if reading == 'plaintext' then root:add_proto_expert_info(E.plaintext) end
  root:add(F.ok, data(0, n), parsed.ok):set_generated()
  if parsed.ok then root:add(F.strict, data(0, n), parsed.strict):set_generated() end
  root:add(F.length, data(0, n), n):set_generated()
  if n > MAX_DATAGRAM_BYTES then
    root:add_proto_expert_info(E.oversize)
  end
  if n >= 1 then
    root:add(F.peer_id, data(0, 1)):append_text(' (' .. peer_label(data(0, 1):uint()) .. ')')
  end
  if n >= 2 then root:add(F.msg_count, data(1, 1)) end
  for index, message in ipairs(parsed.messages) do
    local item = add_message(root, data, message, index, parsed.peer_id, chosen.bytes, frame.marks[index])
    for _, d in ipairs(parsed.ok and parsed.deviations or {}) do
      if d.offset >= message.offset and d.offset < message.offset + message.size then add_deviation(item, data, d) end
    end
  end
  if not parsed.ok then
    local err = parsed.error
    local at = (err.offset < n) and data(err.offset, n - err.offset) or data(0, n)
    root:add(F.error_code, at, err.code):set_generated()
    root:add(F.error_offset, at, err.offset):set_generated()
    root:add(F.error_reason, at, err.reason):set_generated()
    root:add_tvb_expert_info(E.malformed, at, 'Malformed BC datagram (' .. err.code .. ')')
  end
  return n
end

-- The registered-port dissector: claims everything but GameSpy queries, which start
-- with `\` and share the game's socket (docs/sources.md 19).
function bc.dissector(tvb, pinfo, tree)
  local n = tvb:len()
  if n == 0 then return 0 end
  local wire = tvb_bytes(tvb)
  if wire[0] == 0x5C then
    local enc, plain = readings(wire, n)
    if not enc.parsed.ok and not plain.parsed.ok then return 0 end
  end
  return dissect(tvb, pinfo, tree, wire, n)
end

local function plausible_peer(peer_id) return peer_id == 0xFF or (peer_id >= 0x01 and peer_id <= 0x40) end

-- Strict: the datagram must parse exactly, in the stock form, in the reading that
-- would be shown, carry at least one message, and use no ACK flag bits or fragment
-- counts no sender uses (bit 7 is used: a reimplementation's test client, docs/sources.md 30).
local function plausible(parsed)
  if not parsed.ok or not parsed.strict or parsed.msg_count < 1 then return false end
  for _, message in ipairs(parsed.messages) do
    if message.type == 0x01 and message.flags % 128 > 3 then return false end
    if message.frag_count ~= nil and message.frag_count < 1 then return false end
  end
  return true
end

-- Could bytes 1 and 2 start a datagram: msg_count at least 1, then a known type?
local function plausible_start(b)
  return b[1] >= 1 and codec.TYPE_NAMES[b[2]] ~= nil
end

local function heuristic(tvb, pinfo, tree)
  local n = tvb:len()
  if n < 5 or n > MAX_DATAGRAM_BYTES then return false end
  local first = tvb(0, 1):uint()
  if first == 0x5C or not plausible_peer(first) then return false end
  local wire = tvb_bytes(tvb)
  -- Most foreign traffic fails here, before the whole datagram is decrypted twice over.
  if not plausible_start(wire) and not plausible_start(codec.crypt(wire, n, true, 3)) then return false end
  local enc, plain = readings(wire, n)
  local _, _, conversation = direction_keys(pinfo)
  local frame = state.frames[pinfo.number]
  local reading = frame and frame.reading or choose_reading(enc, plain, conversation)
  local chosen = (reading == 'encrypted') and enc or plain
  if not plausible(chosen.parsed) then return false end
  dissect(tvb, pinfo, tree, wire, n)
  return true
end

local registered_port = DEFAULT_PORT
DissectorTable.get('udp.port'):add(registered_port, bc)
bc:register_heuristic('udp', heuristic)

function bc.prefs_changed()
  if bc.prefs.port ~= registered_port then
    local table_ = DissectorTable.get('udp.port')
    if registered_port ~= 0 then table_:remove(registered_port, bc) end
    registered_port = bc.prefs.port
    if registered_port ~= 0 then table_:add(registered_port, bc) end
  end
end
