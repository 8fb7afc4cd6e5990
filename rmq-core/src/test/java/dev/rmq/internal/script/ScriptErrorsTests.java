package dev.rmq.internal.script;

import dev.rmq.StandaloneRedisTest;
import dev.rmq.exceptions.RmqException;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a script call that goes wrong in Redis says: the script, and the line of its own file. */
class ScriptErrorsTests extends StandaloneRedisTest {

    private final SlotKeys keys = new KeyLayout("").slot("orders", 0);

    @Test
    void aCallWhoseArgumentsDoNotFitItsScriptIsRefusedBeforeAnythingIsWritten() {
        SendCall send = SendCall.of(TopicType.PRIORITY, "rmq:wake:orders", 0, 0, 10_000, false,
                List.of(new SendCall.Message("k", 20, new byte[] {1})));
        ScriptCall<List<SendCall.Result>> oneShort = new TamperedCall(send, Arrays.copyOf(send.argv(), send.argv().length - 1));

        assertThatIllegalStateException().isThrownBy(() -> Futures.join(new ScriptRunner(redisson).run(keys, oneShort)))
                .withMessageStartingWith("the Java and Lua sides of send.lua disagree on its arguments: send.lua takes"
                        + " type, wake_channel, slots, late_tolerance_ms, messages[], messages[].key,"
                        + " messages[].value, messages[].envelope; it got 7 arguments");
        assertThat(redis.command("EXISTS", "rmq:{orders_0}")).isEqualTo(0L);
    }

    @Test
    void aLuaErrorNamesTheScriptAndTheLineOfItsOwnFile() {
        SendCall send = SendCall.of(TopicType.RANGE_MERGE, "rmq:wake:orders", 0, 0, 10_000, false,
                List.of(new SendCall.Message("k", 20, new byte[] {1})));
        byte[][] args = send.argv();
        args[6] = "not a number".getBytes(StandardCharsets.UTF_8);
        int line = lineOf("send.lua", "score = NOW_MS + score");

        assertThatThrownBy(() -> Futures.join(new ScriptRunner(redisson).run(keys, new TamperedCall(send, args))))
                .isInstanceOf(RmqException.class)
                .hasMessageStartingWith("script send.lua failed on orders_0: ")
                .hasMessageContaining("send.lua:" + line + ":")
                .hasMessageContaining("arithmetic");
    }

    private static int lineOf(String file, String text) {
        List<String> lines = Script.read(file).lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " is not in " + file);
    }
}
