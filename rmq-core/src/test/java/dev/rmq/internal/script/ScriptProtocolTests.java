package dev.rmq.internal.script;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.redis.SlotKeys;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Holds each Lua script's header, the contract of its arguments, against the Java type that encodes them: the
 * two sides cannot drift apart without this failing.
 */
class ScriptProtocolTests {

    /** Each script's Java encoder. */
    private static final Map<Script, Argv<?>> ENCODERS = encoders();

    private static Map<Script, Argv<?>> encoders() {
        Map<Script, Argv<?>> map = new EnumMap<>(Script.class);
        map.put(Script.SEND, SendCall.ARGV);
        map.put(Script.SEND_CONTROLLED, SendCall.CONTROLLED_ARGV);
        map.put(Script.PREPARE, PrepareCall.ARGV);
        map.put(Script.ACK, AckCall.ARGV);
        map.put(Script.EXTEND, ExtendCall.ARGV);
        map.put(Script.GET, GetCall.ARGV);
        map.put(Script.CANCEL, CancelCall.ARGV);
        map.put(Script.RESTORE, RestoreCall.ARGV);
        map.put(Script.RESCHEDULE, RescheduleCall.ARGV);
        map.put(Script.FENCE_TAKE, FenceTakeCall.ARGV);
        map.put(Script.FENCE_GIVE, FenceGiveCall.ARGV);
        map.put(Script.DEAD_LIST, DeadListCall.ARGV);
        map.put(Script.DEAD_REQUEUE, DeadRequeueCall.ARGV);
        map.put(Script.DEAD_REQUEUE_ALL, DeadRequeueAllCall.ARGV);
        map.put(Script.DEAD_DELETE, DeadDeleteCall.ARGV);
        map.put(Script.DEAD_PURGE, DeadPurgeCall.ARGV);
        map.put(Script.PUTBACK, PutbackCall.ARGV);
        map.put(Script.COUNTS, CountsCall.ARGV);
        map.put(Script.PEEK, PeekCall.ARGV);
        map.put(Script.RATE, RateCall.ARGV);
        return map;
    }

    @Test
    void everyScriptHasAJavaEncoder() {
        assertThat(ENCODERS.keySet()).containsExactlyInAnyOrder(Script.values());
    }

    @Test
    void eachJavaEncoderNamesTheArgumentsOfItsScriptsHeaderInTheSameOrder() {
        for (Script script : Script.values()) {
            assertThat(ENCODERS.get(script).layout().describe())
                    .as("the ARGV of %s (its header) against its Java call type", script.file())
                    .containsExactlyElementsOf(script.header().argv().describe());
        }
    }

    @Test
    void theLuaReadsOnlyArgumentsItsHeaderDeclaresAndUsesEveryOne() {
        Pattern use = Pattern.compile("\\bARG(?:\\.|_)([a-z_][a-z0-9_]*)");
        for (Script script : Script.values()) {
            Set<String> used = new TreeSet<>();
            Matcher matcher = use.matcher(Script.read(script.file()));
            while (matcher.find()) {
                used.add(matcher.group(1));
            }
            Set<String> declared = new TreeSet<>();
            script.header().argv().entries().forEach(e -> declared.add(e.name()));
            assertThat(used).as("the arguments %s reads (ARG.name, ARG_list(i)) against its ARGV block", script.file())
                    .isEqualTo(declared);
        }
    }

    @Test
    void theLuaNamesTheFieldsOfARowAsTheHeaderListsThem() {
        Pattern row = Pattern.compile("local ([a-z_][a-z0-9_]*(?:, [a-z_][a-z0-9_]*)*) = ARG_([a-z_][a-z0-9_]*)\\(");
        int rowsRead = 0;
        for (Script script : Script.values()) {
            Matcher matcher = row.matcher(Script.read(script.file()));
            while (matcher.find()) {
                rowsRead++;
                List<String> names = List.of(matcher.group(1).split(", "));
                List<String> fields = script.header().argv().entries().stream()
                        .filter(e -> e.name().equals(matcher.group(2))).findFirst().orElseThrow().fields();
                assertThat(names.size()).as("%s: %s", script.file(), matcher.group()).isLessThanOrEqualTo(fields.size());
                for (int i = 0; i < names.size(); i++) {
                    if (!names.get(i).equals("_")) {
                        assertThat(names.get(i)).as("field %d of a row of %s in %s", i + 1, matcher.group(2), script.file())
                                .isEqualTo(fields.get(i));
                    }
                }
            }
        }
        assertThat(rowsRead).as("rows read with ARG_list(i) across the scripts").isPositive();
    }

    @Test
    void theLibrarysKeysAreTheSlotKeysAndEachScriptIsGivenTheOnesItUsesInThatOrder() {
        assertThat(Script.libraryHeader().keys()).containsExactlyElementsOf(SlotKeys.NAMES);
        Pattern binding = Pattern.compile("(?m)^local K_([A-Z]+) = KEYS\\[(\\d+)]$");
        for (Script script : Script.values()) {
            if (!script.ofSlot()) {
                continue;
            }
            int[] keys = script.keys();
            assertThat(keys).as("the keys %s is given, in lib.lua's order", script.file()).isSorted();
            Matcher matcher = binding.matcher(script.source());
            List<String> bound = new ArrayList<>();
            while (matcher.find()) {
                assertThat(Integer.parseInt(matcher.group(2))).as("KEYS index of K_%s in %s", matcher.group(1),
                        script.file()).isEqualTo(bound.size() + 1);
                bound.add(matcher.group(1).toLowerCase());
            }
            List<String> expected = java.util.Arrays.stream(keys).mapToObj(SlotKeys.NAMES::get).toList();
            assertThat(bound).as("the keys %s binds", script.file()).containsExactlyElementsOf(expected);
            assertThat(script.source()).as("%s binds the call key after them", script.file())
                    .contains("local CALL_KEY = KEYS[" + (keys.length + 1) + "]");
        }
        assertThat(java.util.Arrays.stream(Script.SEND.keys()).mapToObj(SlotKeys.NAMES::get))
                .as("a send touches only these").containsExactly("store", "body", "delayed", "wake", "expiry");
        assertThat(java.util.Arrays.stream(Script.SEND_CONTROLLED.keys()).mapToObj(SlotKeys.NAMES::get))
                .as("a controlled send touches only these")
                .containsExactly("store", "body", "delayed", "wake", "parked", "expiry");
    }

    @Test
    void aScriptCarriesOnlyTheLibraryFunctionsItCallsWithTheirLinesKept() {
        assertThat(Script.SEND.source()).contains("local function wake_if_earlier(")
                .doesNotContain("local function place(", "local function env_read(", "local function fail(");
        assertThat(Script.SEND_CONTROLLED.source()).contains("local function place(", "local function order_of(")
                .doesNotContain("local function fail(", "local function sweep_expired(");
        assertThat(Script.PREPARE.source()).contains("local function fail(", "local function take_inflight(",
                "local function sweep_expired(", "local function bury_env(");
        assertThat(Script.FENCE_GIVE.source()).doesNotContain("local function env_read(");
        int lineInLibrary = Script.read(Script.LIBRARY).lines().toList().indexOf("local function take_inflight(key)") + 1;
        int lineInPrepare = Script.PREPARE.source().lines().toList().indexOf("local function take_inflight(key)") + 1;
        assertThat(Script.PREPARE.relocate("user_script:" + lineInPrepare + ": boom"))
                .isEqualTo("lib.lua:" + lineInLibrary + ": boom");
    }

    @Test
    void theLibrarysPolicyGroupIsTheRetryPolicysFields() {
        assertThat(Script.libraryHeader().groups().get("policy"))
                .containsExactlyElementsOf(RetryPolicy.ARGV.layout().describe());
    }

    @Test
    void repliesUseOnlyTheWordsTheHeadersPromise() {
        for (AckOutcome outcome : AckOutcome.values()) {
            assertThat(Script.ACK.header().returns()).as("ack.lua RETURNS").contains(outcome.scriptName());
        }
        for (String state : List.of("waiting", "delayed", "retrying", "parked", "in-flight", "dead")) {
            assertThat(GetCall.state(state)).isNotNull();
            assertThat(Script.GET.header().returns()).as("get.lua RETURNS").contains(state);
        }
    }

    @Test
    void encodesRowsAsTheirCountFollowedByEachRowsFields() {
        SendCall call = SendCall.of(dev.rmq.topic.TopicType.PRIORITY, "rmq:wake:t", 3, 0, 10_000, true, List.of(
                new SendCall.Message("a", 20, new byte[] {1}), new SendCall.Message("b", 30, new byte[] {2})));
        List<String> args = new ArrayList<>();
        for (byte[] arg : call.argv()) {
            args.add(arg.length == 1 && arg[0] < 10 ? "<" + arg[0] + ">" : new String(arg));
        }
        assertThat(args).containsExactly("P", "rmq:wake:t", "3", "0", "10000", "1", "2", "a", "20", "<1>", "b", "30", "<2>");
    }

    @Test
    void aHeaderWithARowFieldOutsideAListIsRefusedNamingTheLine() {
        String lua = "-- broken\n-- ARGV\n--   slot            the slot\n--     key           a field\n";
        assertThatIllegalStateException().isThrownBy(() -> ScriptHeader.parse("broken.lua", lua, Map.of()))
                .withMessage("broken.lua:4: row field 'key' is not under a list argument (name[])");
    }

    @Test
    void aHeaderNamingAnUndeclaredGroupIsRefused() {
        String lua = "-- ARGV\n--   limits{}        the limits\n";
        assertThatIllegalStateException().isThrownBy(() -> ScriptHeader.parse("x.lua", lua, Map.of("policy", List.of())))
                .withMessageContaining("x.lua:2: ARGV group 'limits' is not declared in lib.lua");
    }
}
