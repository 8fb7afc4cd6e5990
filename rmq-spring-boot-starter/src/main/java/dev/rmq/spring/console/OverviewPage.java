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

    static String main(ConsoleData data, ConsoleHistory history, ConsoleRequest request) {
        Html html = new Html();
        html.raw("<h1>Topics</h1><table class=\"grid\" id=\"topics\"><thead><tr><th>Topic</th><th>Type</th>")
                .raw("<th>Slots</th><th>Due now</th><th>Later</th><th>Retrying</th><th>Parked</th>")
                .raw("<th>In flight</th><th>Dead</th><th>State</th><th>Oldest due</th><th>Sent/s</th>")
                .raw("<th>Consumed/s</th><th>Lateness p99</th></tr></thead><tbody>");
        for (TopicDefinition topic : data.topics()) {
            String name = topic.name();
            String at = request.base() + "topics/" + Html.segment(name);
            html.raw("<tr data-topic=\"" + Html.attr(name) + "\"><td>").link(at, name).raw("</td>");
            try {
                TopicCounts counts = data.counts(name);
                SlotCounts total = counts.total();
                html.el("td", type(topic))
                        .el("td class=\"n\"", topic.slotAmount())
                        .el("td class=\"n due\"", total.dueNow()).el("td class=\"n\"", total.later())
                        .el("td class=\"n\"", total.retrying()).el("td class=\"n\"", total.parked())
                        .el("td class=\"n inflight\"", total.inFlight())
                        .raw("<td class=\"n dead\">").link(at + "/dead", total.dead()).raw("</td>")
                        .el("td class=\"state\"", PauseState.of(counts).describe())
                        .el("td class=\"n\"", total.dueAgeMs() == 0 ? "" : Html.duration(Duration.ofMillis(total.dueAgeMs())));
                ConsoleHistory.Sample latest = history.latest(name);
                html.el("td class=\"n\"", latest == null ? "" : latest.sentPerSecond())
                        .el("td class=\"n\"", latest == null ? "" : latest.consumedPerSecond())
                        .el("td class=\"n\"", latest == null || latest.latenessP99Ms() < 0 ? ""
                                : Html.duration(Duration.ofMillis(latest.latenessP99Ms())));
            } catch (RuntimeException e) {
                html.raw("<td colspan=\"13\" class=\"error\">").text("could not read its counts: " + e.getMessage())
                        .raw("</td>");
            }
            html.raw("</tr>");
        }
        html.raw("</tbody></table><p class=\"muted\">Counts are Redis's, for the whole cluster; rates and lateness")
                .raw(" are this application's own sends and deliveries, over the last refresh.</p>");
        return html.toString();
    }

    /** The topic's type as the docs write it: range-merge, priority, fixed-time. */
    static String type(TopicDefinition topic) {
        return topic.type().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
