package dev.rmq.internal.script;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Holds each Lua script's header, the contract of its arguments, its reply and its errors, against the Java types
 * that encode and read them: the two sides cannot drift apart without this failing.
 */
class ScriptProtocolTests {

    /** The Java side of a script's contract: what encodes its arguments, and what reads its reply. */
    private record Contract(Argv<?> argv, Reply<?> reply) {
    }

    /** Each script's Java side. */
    private static final Map<Script, Contract> CONTRACTS = contracts();

    private static Map<Script, Contract> contracts() {
        Map<Script, Contract> map = new EnumMap<>(Script.class);
        map.put(Script.SEND, new Contract(SendCall.ARGV, SendCall.REPLY));
        map.put(Script.SEND_CONTROLLED, new Contract(SendCall.CONTROLLED_ARGV, SendCall.REPLY));
        map.put(Script.PREPARE, new Contract(PrepareCall.ARGV, PrepareCall.REPLY));
        map.put(Script.ACK, new Contract(AckCall.ARGV, AckCall.REPLY));
        map.put(Script.EXTEND, new Contract(ExtendCall.ARGV, ExtendCall.REPLY));
        map.put(Script.PROGRESS, new Contract(ProgressCall.ARGV, ProgressCall.REPLY));
        map.put(Script.GET, new Contract(GetCall.ARGV, GetCall.REPLY));
        map.put(Script.CANCEL, new Contract(CancelCall.ARGV, CancelCall.REPLY));
        map.put(Script.RESTORE, new Contract(RestoreCall.ARGV, RestoreCall.REPLY));
        map.put(Script.RESCHEDULE, new Contract(RescheduleCall.ARGV, RescheduleCall.REPLY));
        map.put(Script.FENCE_TAKE, new Contract(FenceTakeCall.ARGV, FenceTakeCall.REPLY));
        map.put(Script.FENCE_GIVE, new Contract(FenceGiveCall.ARGV, FenceGiveCall.REPLY));
        map.put(Script.DEAD_LIST, new Contract(DeadListCall.ARGV, DeadListCall.REPLY));
        map.put(Script.DEAD_REQUEUE, new Contract(DeadRequeueCall.ARGV, DeadRequeueCall.REPLY));
        map.put(Script.DEAD_REQUEUE_ALL, new Contract(DeadRequeueAllCall.ARGV, DeadRequeueAllCall.REPLY));
        map.put(Script.DEAD_DELETE, new Contract(DeadDeleteCall.ARGV, DeadDeleteCall.REPLY));
        map.put(Script.DEAD_PURGE, new Contract(DeadPurgeCall.ARGV, DeadPurgeCall.REPLY));
        map.put(Script.CLEAR, new Contract(ClearCall.ARGV, ClearCall.REPLY));
        map.put(Script.PUTBACK, new Contract(PutbackCall.ARGV, PutbackCall.REPLY));
        map.put(Script.COUNTS, new Contract(CountsCall.ARGV, CountsCall.REPLY));
        map.put(Script.PEEK, new Contract(PeekCall.ARGV, PeekCall.REPLY));
        map.put(Script.SCHEDULE_TICK, new Contract(ScheduleTickCall.ARGV, ScheduleTickCall.REPLY));
        map.put(Script.SCHEDULE_STATE, new Contract(ScheduleStateCall.ARGV, ScheduleStateCall.REPLY));
        map.put(Script.RATE, new Contract(RateCall.ARGV, RateCall.REPLY));
        return map;
    }

    @Test
    void everyScriptHasAJavaEncoderAndReader() {
        assertThat(CONTRACTS.keySet()).containsExactlyInAnyOrder(Script.values());
    }

    @Test
    void eachJavaEncoderNamesTheArgumentsOfItsScriptsHeaderInTheSameOrder() {
        for (Script script : Script.values()) {
            assertThat(CONTRACTS.get(script).argv().layout().describe())
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
    void noScriptWritesToArgWhichAFunctionLibraryKeepsBetweenCalls() {
        // each call sets every field the header declares, and nothing else: a field a script wrote would be seen by
        // the next call of its Function
        Pattern write = Pattern.compile("\\bARG(?:\\.[a-z_][a-z0-9_]*|\\[[^]]*])\\s*=(?!=)|\\bARG\\s*=(?!=)");
        for (Script script : Script.values()) {
            String code = LibraryParts.withoutComments(Script.read(script.file()));
            assertThat(write.matcher(code).find()).as("%s writes to ARG", script.file()).isFalse();
        }
        assertThat(write.matcher("ARG.batch = 1").find()).isTrue();
        assertThat(write.matcher("if ARG.batch == 1 then").find()).isFalse();
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
        Pattern binding = Pattern.compile("(?m)^K_([A-Z]+) = KEYS\\[(\\d+)]$");
        Pattern blockBinding = Pattern.compile("local function bind_slot\\(g\\)\n    local at = g \\* (\\d+)\n    (K_[A-Z_, ]+) = ([^\n]+)\n");
        for (Script script : Script.values()) {
            if (!script.ofSlot()) {
                continue;
            }
            int[] keys = script.keys();
            assertThat(keys).as("the keys %s is given, in lib.lua's order", script.file()).isSorted();
            List<String> expected = java.util.Arrays.stream(keys).mapToObj(SlotKeys.NAMES::get).toList();
            Matcher block = blockBinding.matcher(script.source());
            boolean severalSlots = block.find();
            if (severalSlots) {
                // a script that takes calls of several slots binds the next slots' keys a block at a time
                List<String> inBlock = new ArrayList<>();
                String[] names = block.group(2).split(", ");
                String[] values = block.group(3).split(", ");
                for (int i = 0; i < names.length; i++) {
                    assertThat(values[i]).as("the key bound to %s in %s", names[i], script.file())
                            .isEqualTo("SLOT_KEYS[at + " + (i + 1) + "]");
                    inBlock.add(names[i].substring("K_".length()).toLowerCase());
                }
                assertThat(block.group(1)).as("the block size of %s", script.file()).isEqualTo(String.valueOf(keys.length));
                assertThat(inBlock).as("the keys %s binds a block at a time", script.file())
                        .containsExactlyElementsOf(expected);
                assertThat(script.source()).as("%s binds the call key after whole blocks", script.file())
                        .contains("\nCALL_KEY = #KEYS % " + keys.length + " == 1 and KEYS[#KEYS] or nil\n");
            }
            Matcher matcher = binding.matcher(script.source());
            List<String> bound = new ArrayList<>();
            while (matcher.find()) {
                assertThat(Integer.parseInt(matcher.group(2))).as("KEYS index of K_%s in %s", matcher.group(1),
                        script.file()).isEqualTo(bound.size() + 1);
                bound.add(matcher.group(1).toLowerCase());
            }
            assertThat(bound).as("the keys %s binds", script.file()).containsExactlyElementsOf(expected);
            if (!severalSlots) {
                assertThat(script.source()).as("%s binds the call key after them", script.file())
                        .contains("\nCALL_KEY = KEYS[" + (keys.length + 1) + "]\n");
            }
        }
        assertThat(blockBinding.matcher(Script.SEND.source()).find()).as("send.lua takes calls of several slots")
                .isTrue();
        assertThat(java.util.Arrays.stream(Script.SEND.keys()).mapToObj(SlotKeys.NAMES::get))
                .as("a send touches only these (prepare: whether a delivery of a new key is in flight)")
                .containsExactly("store", "body", "prepare", "delayed", "wake", "expiry");
        assertThat(java.util.Arrays.stream(Script.SEND_CONTROLLED.keys()).mapToObj(SlotKeys.NAMES::get))
                .as("a controlled send touches only these")
                .containsExactly("store", "body", "prepare", "delayed", "wake", "parked", "expiry", "throttled");
    }

    @Test
    void theLayoutPageListsEveryKeyOfASlot() throws java.io.IOException {
        String page = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "redis-layout.md"));
        for (String key : Script.libraryHeader().keys()) {
            String row = key.equals("store") ? "| `rmq:{t_i}` |" : "| `rmq:" + key + "{t_i}` |";
            assertThat(page).as("docs/redis-layout.md's row of lib.lua's key '%s'", key).contains(row);
        }
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
        // a library's code follows the #!lua line Redis requires, so its lines are one further on
        assertThat(Script.PREPARE.relocate("user_function:" + (lineInPrepare + 1) + ": boom"))
                .isEqualTo("lib.lua:" + lineInLibrary + ": boom");
        // the script's own file sits at a different place in each form: inside rmq_call for EVAL, beside it in the
        // library
        String ownLine = "local ended = table.concat(outcomes, ' ')";
        int lineInFile = Script.read("prepare.lua").lines().toList().indexOf(ownLine) + 1;
        int lineInEval = Script.PREPARE.source().lines().toList().indexOf(ownLine) + 1;
        int lineInFunction = Script.PREPARE.functionCode().lines().toList().indexOf(ownLine) + 1;
        assertThat(lineInFile).isPositive();
        assertThat(lineInEval).isNotEqualTo(lineInFunction);
        assertThat(Script.PREPARE.relocate("user_script:" + lineInEval + ": boom"))
                .isEqualTo("prepare.lua:" + lineInFile + ": boom");
        assertThat(Script.PREPARE.relocate("user_function:" + (lineInFunction + 1) + ": boom"))
                .isEqualTo("prepare.lua:" + lineInFile + ": boom");
    }

    @Test
    void theLibrarysPolicyGroupIsTheRetryPolicysFields() {
        assertThat(Script.libraryHeader().groups().get("policy"))
                .containsExactlyElementsOf(RetryPolicy.ARGV.layout().describe());
        // policy_from reads the type as the argument's first letter and the rest by this list, in the block's order
        List<String> fields = Script.libraryHeader().groups().get("policy");
        assertThat(fields.get(0)).isEqualTo("type");
        assertThat(RetryPolicy.of(TopicDefinition.builder("t", TopicType.PRIORITY).build()).type()).hasSize(1);
        String list = fields.subList(1, fields.size()).stream().map(f -> "'" + f + "'")
                .collect(java.util.stream.Collectors.joining(", "));
        assertThat(Script.read(Script.LIBRARY).replaceAll("\\s+", " "))
                .contains("local fields = { " + list + " }");
    }

    @Test
    void aGroupTravelsAsOneArgumentAndRefusesAFieldThatIsEmptyOrHoldsItsSeparator() {
        RetryPolicy policy = new RetryPolicy("P", 16, 1000, 2.0, 300_000, 0.2, 100_000, 3, "drop");
        byte[][] argv = new AckCall(policy, "", "wake", 0, List.of()).argv();
        assertThat(new String(argv[0], StandardCharsets.UTF_8)).isEqualTo("P 16 1000 2.0 300000 0.2 100000 3 drop");
        RetryPolicy spaced = new RetryPolicy("P", 16, 1000, 2.0, 300_000, 0.2, 100_000, 3, "drop it");
        assertThatIllegalArgumentException().isThrownBy(() -> new AckCall(spaced, "", "wake", 0, List.of()).argv())
                .withMessageContaining("policy.expiry holds a space");
        RetryPolicy empty = new RetryPolicy("P", 16, 1000, 2.0, 300_000, 0.2, 100_000, 3, "");
        assertThatIllegalArgumentException().isThrownBy(() -> new AckCall(empty, "", "wake", 0, List.of()).argv())
                .withMessageContaining("policy.expiry is empty");
    }

    @Test
    void eachJavaReaderNamesTheFieldsOfItsScriptsReturnsBlockInTheSameOrder() {
        for (Script script : Script.values()) {
            assertThat(script.header().returns().entries()).as("the RETURNS block of %s", script.file()).isNotEmpty();
            assertThat(CONTRACTS.get(script).reply().layout().describe())
                    .as("the reply of %s (its RETURNS block) against its Java reader", script.file())
                    .containsExactlyElementsOf(script.header().returns().describe());
        }
    }

    @Test
    void eachWordAScriptMayReplyIsOneItsJavaReaderKnows() {
        for (Script script : Script.values()) {
            Map<String, List<String>> read = CONTRACTS.get(script).reply().words();
            Map<String, List<String>> promised = script.header().words();
            assertThat(promised.keySet()).as("the word fields of %s's RETURNS against its Java reader", script.file())
                    .isEqualTo(read.keySet());
            promised.forEach((field, words) -> assertThat(read.get(field))
                    .as("the words of %s in %s's reply", field, script.file()).containsAll(words));
        }
        // a reader shared by two scripts knows no word that neither of them may reply
        Set<String> sent = new TreeSet<>(Script.SEND.header().words().get("results[].outcome"));
        sent.addAll(Script.SEND_CONTROLLED.header().words().get("results[].outcome"));
        assertThat(SendCall.REPLY.words().get("results[].outcome")).containsExactlyInAnyOrderElementsOf(sent);
        for (Script script : Script.values()) {
            if (script != Script.SEND && script != Script.SEND_CONTROLLED) {
                script.header().words().forEach((field, words) -> assertThat(CONTRACTS.get(script).reply().words().get(field))
                        .as("the words %s's reader knows for %s", script.file(), field).containsExactlyInAnyOrderElementsOf(words));
            }
        }
    }

    @Test
    void everyErrorAScriptCanRaiseIsDeclaredAndJavaTranslatesEachDeclaredCode() {
        Pattern raised = Pattern.compile("'(RMQ_[A-Z_]+)[ ']");
        List<String> common = Script.libraryHeader().errors();
        assertThat(common).containsExactly("RMQ_ARGV");
        for (Script script : Script.values()) {
            Set<String> declared = new TreeSet<>(script.header().errors());
            declared.addAll(common);
            Matcher matcher = raised.matcher(script.source());
            Set<String> found = new TreeSet<>();
            while (matcher.find()) {
                found.add(matcher.group(1));
            }
            if (script.ofSlot()) {
                assertThat(found).as("the error codes in %s as Redis runs it", script.file()).contains("RMQ_ARGV");
            }
            assertThat(declared).as("the ERRORS of %s and lib.lua against the codes its source raises", script.file())
                    .containsAll(found);
            for (String code : script.header().errors()) {
                assertThat(ScriptErrors.translate(new RuntimeException(code + " boom"), script, "t_0"))
                        .as("what Java makes of %s from %s", code, script.file())
                        .isNotExactlyInstanceOf(dev.rmq.exceptions.RmqException.class);
            }
        }
    }

    @Test
    void aReplyOfAnotherShapeIsRefusedNamingTheScriptAndItsFields() {
        assertThatIllegalStateException().isThrownBy(() -> PrepareCall.REPLY.decode(Script.PREPARE,
                        List.of(1L, 0L, 0L, 0L, "".getBytes(), "".getBytes(), "".getBytes(), "".getBytes(), 2L,
                                "a".getBytes(), "b".getBytes(), "c".getBytes(), 0L)))
                .withMessageContaining("prepare.lua replied 13 part(s), where 2 row(s) of list 'messages', of 2"
                        + " field(s) each, after 9 part(s) make at least 14")
                .withMessageContaining("messages[].envelope");
        // the last list's rows end the reply
        assertThatIllegalStateException().isThrownBy(() -> PrepareCall.REPLY.decode(Script.PREPARE,
                        List.of(1L, 0L, 0L, 0L, "".getBytes(), "".getBytes(), "".getBytes(), "".getBytes(), 0L, 1L,
                                "k".getBytes(), "retry".getBytes(), "extra".getBytes())))
                .withMessageContaining("1 row(s) of list 'recovered', of 2 field(s) each, after 10 part(s) make 12");
        assertThatIllegalStateException().isThrownBy(() -> PrepareCall.REPLY.decode(Script.PREPARE,
                        List.of(1L, 0L, 0L, 0L, "".getBytes(), "".getBytes(), "".getBytes(), "".getBytes(), 0L, 1L,
                                "k".getBytes(), "committed".getBytes())))
                .withMessageContaining("'committed' as its WORD field 'outcome', which holds one of");
        assertThatIllegalStateException().isThrownBy(() -> AckCall.REPLY.decode(Script.ACK, List.of(1L, "done".getBytes())))
                .withMessageContaining("ack.lua replied 'done' as its WORD field 'outcome', which holds one of");
        assertThatIllegalStateException().isThrownBy(() -> CancelCall.REPLY.decode(Script.CANCEL, List.of(2L, 0L)))
                .withMessageContaining("cancel.lua replied 2 as its FLAG field 'waiting'");
        assertThatIllegalStateException().isThrownBy(() -> CancelCall.REPLY.decode(Script.CANCEL, 1L))
                .withMessageContaining("cancel.lua replied a reply that is not a list: 1");
        assertThatIllegalStateException().isThrownBy(() -> CountsCall.REPLY.decode(Script.COUNTS, List.of(1L, 2L)))
                .withMessageContaining("counts.lua replied 2 part(s), fewer than the 9 it starts with");
    }

    @Test
    void aReplyOfTheRightShapeIsReadByName() {
        PrepareCall.Polled polled = PrepareCall.REPLY.decode(Script.PREPARE,
                List.of(7L, 0L, 2L, 0L, "1732712345678".getBytes(), "".getBytes(), "committed stale".getBytes(),
                        "250000".getBytes(), 1L, "k".getBytes(), new byte[] {9}, 2L, "r".getBytes(), "merged".getBytes(),
                        "s".getBytes(), "dead".getBytes()));
        assertThat(polled.token()).isEqualTo(7);
        assertThat(polled.next()).isEqualTo(1732712345678L);
        assertThat(polled.later()).isNull();
        assertThat(polled.delayedMicros()).isEqualTo(250_000L);
        assertThat(polled.ended()).containsExactly(AckOutcome.COMMITTED, AckOutcome.STALE);
        assertThat(polled.recovered()).containsExactly(new PrepareCall.Recovered("r", AckOutcome.MERGED),
                new PrepareCall.Recovered("s", AckOutcome.DEAD));
        assertThat(polled.expired()).isEqualTo(2);
        assertThat(polled.paused()).isFalse();
        assertThat(polled.messages()).singleElement().satisfies(m -> {
            assertThat(m.key()).isEqualTo("k");
            assertThat(m.envelope()).containsExactly(9);
        });
        assertThat(SendCall.REPLY.decode(Script.SEND, List.of(2L, "added".getBytes(), 0L, "too_late".getBytes(), 12L)))
                .containsExactly(new SendCall.Result(SendCall.Outcome.ADDED, 0),
                        new SendCall.Result(SendCall.Outcome.TOO_LATE, 12));
        assertThat(GetCall.REPLY.decode(Script.GET, List.of(0L))).isEmpty();
    }

    @Test
    void encodesRowsAsTheirCountFollowedByEachRowsFields() {
        SendCall call = SendCall.of(dev.rmq.topic.TopicType.PRIORITY, "rmq:wake:t", 3, 0, 10_000, true, List.of(
                new SendCall.Message("a", 20, new byte[] {1}), new SendCall.Message("b", 30, new byte[] {2})));
        List<String> args = new ArrayList<>();
        for (byte[] arg : call.argv()) {
            args.add(arg.length == 1 && arg[0] < 10 ? "<" + arg[0] + ">" : new String(arg));
        }
        assertThat(args).containsExactly("P", "rmq:wake:t", "3", "0", "10000", "1", "2", "a", "20", "<1>", "R", "0", "b", "30",
                "<2>", "R", "0");
    }

    @Test
    void anArgumentIsItsBytesItsTextInUtf8OrItsNumberInDecimal() {
        for (long n : new long[] {0, 7, 9, 10, 99, 100, -1, -10, 1_733_000_000_000_000L, Long.MAX_VALUE,
                Long.MIN_VALUE}) {
            assertThat(new String(Argv.bytes(n), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(n));
        }
        assertThat(new String(Argv.bytes(-42), StandardCharsets.US_ASCII)).isEqualTo("-42");
        assertThat(new String(Argv.bytes((short) 5), StandardCharsets.US_ASCII)).isEqualTo("5");
        assertThat(new String(Argv.bytes((byte) -3), StandardCharsets.US_ASCII)).isEqualTo("-3");
        assertThat(new String(Argv.bytes(1.5), StandardCharsets.US_ASCII)).isEqualTo("1.5");
        assertThat(new String(Argv.bytes('C'), StandardCharsets.US_ASCII)).isEqualTo("C");
        assertThat(Argv.bytes('é')).containsExactly("é".getBytes(StandardCharsets.UTF_8));
        assertThat(Argv.bytes("")).isEmpty();
        assertThat(Argv.bytes("ké")).containsExactly("ké".getBytes(StandardCharsets.UTF_8));
        byte[] raw = {1, 2};
        assertThat(Argv.bytes(raw)).isSameAs(raw);
        assertThatIllegalArgumentException().isThrownBy(() -> Argv.bytes(List.of()))
                .withMessageContaining("script arguments are byte[], String, numbers or characters");
    }

    @Test
    void equalNumbersOfOneCallShareTheirDigits() {
        RetryPolicy policy = new RetryPolicy("P", 0, 10, 1.0, 10, 0, 0, 3, "dead");
        byte[][] argv = new AckCall(policy, "", "rmq:wake:t", 0, List.of(
                new AckCall.Ack(AckCall.Op.COMMIT, "a", 5, ""), new AckCall.Ack(AckCall.Op.COMMIT, "b", 5, ""),
                new AckCall.Ack(AckCall.Op.ROLL_BACK, "c", 6, "boom"), new AckCall.Ack(AckCall.Op.COMMIT, "d", 5, "")))
                .argv();
        List<String> args = new ArrayList<>();
        for (byte[] arg : argv) {
            args.add(new String(arg, StandardCharsets.UTF_8));
        }
        // policy, fence, wake channel, slot, then the rows: op, key, token, reason
        assertThat(args.subList(4, args.size())).containsExactly("4", "C", "a", "5", "", "C", "b", "5", "", "R", "c",
                "6", "boom", "C", "d", "5", "");
        assertThat(argv[7]).as("the second row's token is the first's").isSameAs(argv[11]);
        assertThat(argv[19]).as("after another number, one of its own").isNotSameAs(argv[7]);
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
