package dev.rmq.spring.console;

import dev.rmq.admin.PauseState;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** One topic: its charts, its slots with their owners, the next messages and those in flight. */
final class TopicPage {

    /** How many of the next messages, and of those in flight, the page lists unless asked for more. */
    static final int LISTED = 20;
    /** The most it lists when asked. */
    static final int MOST_LISTED = 500;

    private TopicPage() {
    }

    /** @param listed how many of the next messages and of those in flight to list, 1 to {@value #MOST_LISTED} */
    static String main(ConsoleData data, ConsoleHistory history, ConsoleRequest request, String name, int listed) {
        TopicDefinition topic = data.topic(name);
        TopicCounts counts = data.counts(name);
        Html html = new Html();
        html.raw("<h1>").text(name).raw(" <small>").text(OverviewPage.type(topic))
                .raw(", ").text(topic.slotAmount() + " slot(s), " + PauseState.of(counts).describe()).raw("</small></h1>");
        html.raw("<p class=\"tools\">").link(request.base() + "topics/" + Html.segment(name) + "/dead",
                "Dead queue (" + counts.total().dead() + ")");
        if (request.canWrite()) {
            html.raw(Layout.action("Pause", "pause", name, "", null, ""))
                    .raw(Layout.action("Resume", "resume", name, "", null, ""));
        }
        html.raw("</p>");
        List<ConsoleHistory.Sample> samples = history.of(name);
        html.raw("<section class=\"charts\"><h2>").text(samples.size() < 2 ? "History"
                        : "The last " + Html.duration(Duration.between(samples.get(0).at(),
                        samples.get(samples.size() - 1).at())))
                .raw(" <small class=\"muted\">").text("sampled every " + Html.duration(history.every())
                        + ", kept for " + Html.duration(history.length())).raw("</small></h2>")
                .raw(Charts.line("Waiting", "", samples, ConsoleHistory.Sample::waiting))
                .raw(Charts.line("In flight", "", samples, ConsoleHistory.Sample::inFlight))
                .raw(Charts.line("Retrying", "", samples, ConsoleHistory.Sample::retrying))
                .raw(Charts.line("Dead", "", samples, ConsoleHistory.Sample::dead))
                .raw(Charts.line("Oldest due message's age", " ms", samples, ConsoleHistory.Sample::dueAgeMs))
                .raw(Charts.line("Sent per second, this application", "", samples,
                        ConsoleHistory.Sample::sentPerSecond))
                .raw(Charts.line("Consumed per second, this application", "", samples,
                        ConsoleHistory.Sample::consumedPerSecond))
                .raw(topic.type() == TopicType.PRIORITY ? "" : Charts.line("Lateness p99, this application", " ms",
                        samples, sample -> Math.max(0, sample.latenessP99Ms())))
                .raw("</section>");
        slots(html, data, name, counts);
        html.raw("<h2>Next ").text(listed).raw(", in the order consumers take them</h2><p class=\"tools\">");
        for (int more : new int[] {LISTED, 100, MOST_LISTED}) {
            if (more != listed) {
                html.link(Html.segment(name) + "?next=" + more, "Show " + more);
            }
        }
        html.raw("</p>");
        messages(html, request, topic, data.next(name, listed), false);
        html.raw("<h2>In flight, the earliest lease first</h2>");
        messages(html, request, topic, data.inFlight(name, listed), true);
        return html.toString();
    }

    private static void slots(Html html, ConsoleData data, String name, TopicCounts counts) {
        Map<Integer, List<String>> owners = data.owners().of(name);
        Map<Integer, String> plan = data.owners().plan(name);
        html.raw("<h2>Slots</h2><p class=\"muted\">").text(data.owners().coordinated()
                        ? "Owners as ZooKeeper records them, in the whole cluster."
                        : "Owners among this application's workers.")
                .raw("</p><table class=\"grid\" id=\"slots\"><thead><tr><th>Slot</th><th>Owner</th><th>Planned</th>")
                .raw("<th>Fencing token</th><th>Waiting</th><th>In flight</th><th>Earliest lease</th><th>Retrying</th>")
                .raw("<th>Dead</th><th>Paused</th></tr></thead><tbody>");
        for (SlotCounts slot : counts.slots()) {
            html.raw("<tr>").el("td class=\"n\"", slot.slot())
                    .el("td", String.join(", ", owners.getOrDefault(slot.slot(), List.of())))
                    .el("td", plan.getOrDefault(slot.slot(), ""))
                    // the token the owner's polls and acknowledgements quote, which changes with every handover
                    .el("td class=\"token\"", slot.fence())
                    .el("td class=\"n\"", slot.waiting()).el("td class=\"n\"", slot.inFlight())
                    .el("td", slot.inFlight() == 0 ? "" : earliestLease(data, name, slot.slot()))
                    .el("td class=\"n\"", slot.retrying()).el("td class=\"n\"", slot.dead())
                    .el("td", slot.paused() ? "paused" : "").raw("</tr>");
        }
        html.raw("</tbody></table>");
    }

    private static void messages(Html html, ConsoleRequest request, TopicDefinition topic, List<StoredMessage> list,
                                 boolean inFlight) {
        if (list.isEmpty()) {
            html.raw("<p class=\"muted\">None.</p>");
            return;
        }
        html.raw("<table class=\"grid\"><thead><tr><th>Key</th><th>Slot</th><th>")
                .text(inFlight ? "Lease until" : topic.type() == TopicType.PRIORITY ? "Priority" : "Due")
                .raw("</th><th>Attempts</th><th>Size</th></tr></thead><tbody>");
        for (StoredMessage message : list) {
            html.raw("<tr><td>").link(request.base() + "lookup?topic=" + Html.segment(topic.name()) + "&key="
                            + Html.segment(message.key()), message.key()).raw("</td>")
                    .el("td class=\"n\"", message.slot()).el("td", score(topic, message, inFlight))
                    .el("td class=\"n\"", message.attempts())
                    .el("td class=\"n\"", message.encrypted() ? "encrypted" : message.payload().length + " B")
                    .raw("</tr>");
        }
        html.raw("</tbody></table>");
    }

    /** The earliest lease deadline of the slot's deliveries: one read, only for a slot with any in flight. */
    private static String earliestLease(ConsoleData data, String topic, int slot) {
        List<StoredMessage> first = data.inFlight(topic, slot, 1);
        return first.isEmpty() ? "" : score(data.topic(topic), first.get(0), true);
    }

    /** A message's score as its state means it. */
    static String score(TopicDefinition topic, StoredMessage message, boolean inFlight) {
        if (inFlight) {
            long micros = (long) message.score();
            return Html.time(Instant.ofEpochSecond(micros / 1_000_000, micros % 1_000_000 * 1000));
        }
        if (topic.type() == TopicType.PRIORITY && message.state() != dev.rmq.producer.MessageState.DELAYED
                && message.state() != dev.rmq.producer.MessageState.RETRYING) {
            return String.valueOf((long) message.score());
        }
        return Html.time(Instant.ofEpochMilli((long) message.score()));
    }
}
