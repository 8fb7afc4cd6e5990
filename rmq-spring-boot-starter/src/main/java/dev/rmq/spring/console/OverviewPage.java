package dev.rmq.spring.console;

import dev.rmq.admin.PauseState;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.topic.TopicDefinition;

import java.time.Duration;

/** The first page: one row per topic, with where its messages are. */
final class OverviewPage {

    private OverviewPage() {
    }

    static String main(ConsoleData data, ConsoleRequest request) {
        Html html = new Html();
        html.raw("<h1>Topics</h1><table class=\"grid\" id=\"topics\"><thead><tr><th>Topic</th><th>Type</th>")
                .raw("<th>Slots</th><th>Due now</th><th>Later</th><th>Retrying</th><th>Parked</th>")
                .raw("<th>In flight</th><th>Dead</th><th>State</th><th>Oldest due</th></tr></thead><tbody>");
        for (TopicDefinition topic : data.topics()) {
            String name = topic.name();
            String at = request.base() + "topics/" + Html.segment(name);
            html.raw("<tr data-topic=\"" + Html.attr(name) + "\"><td>").link(at, name).raw("</td>");
            try {
                TopicCounts counts = data.counts(name);
                SlotCounts total = counts.total();
                html.el("td", topic.type().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'))
                        .el("td class=\"n\"", topic.slotAmount())
                        .el("td class=\"n due\"", total.dueNow()).el("td class=\"n\"", total.later())
                        .el("td class=\"n\"", total.retrying()).el("td class=\"n\"", total.parked())
                        .el("td class=\"n inflight\"", total.inFlight())
                        .raw("<td class=\"n dead\">").link(at + "/dead", total.dead()).raw("</td>")
                        .el("td class=\"state\"", state(topic, counts))
                        .el("td class=\"n\"", total.dueAgeMs() == 0 ? "" : Html.duration(Duration.ofMillis(total.dueAgeMs())));
            } catch (RuntimeException e) {
                html.raw("<td colspan=\"10\" class=\"error\">").text("could not read its counts: " + e.getMessage())
                        .raw("</td>");
            }
            html.raw("</tr>");
        }
        html.raw("</tbody></table>");
        return html.toString();
    }

    static String state(TopicDefinition topic, TopicCounts counts) {
        int paused = (int) counts.slots().stream().filter(SlotCounts::paused).count();
        return new PauseState(topic.name(), paused, topic.slotAmount()).describe();
    }
}
