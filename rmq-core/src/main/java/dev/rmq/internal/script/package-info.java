/**
 * The protocol between Java and rmq's Lua scripts. Each script (a resource file next to these classes)
 * declares its arguments in an ARGV block of its header; {@link dev.rmq.internal.script.Script} assembles
 * it with lib.lua and a prologue generated from that block, and one {@link dev.rmq.internal.script.ScriptCall}
 * type per script encodes the same arguments with an {@link dev.rmq.internal.script.Argv} and reads the
 * reply into records and enums. {@link dev.rmq.internal.script.ScriptRunner} runs calls, alone or pipelined.
 *
 * <p>To add an argument to a script: add its line to the script's ARGV block and use {@code ARG.name} in the
 * Lua, then add it to the call type's {@code Argv} in the same place. {@code ScriptProtocolTests} fails
 * until the two sides agree.
 */
@NullMarked
package dev.rmq.internal.script;

import org.jspecify.annotations.NullMarked;
