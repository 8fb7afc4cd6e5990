package dev.rmq.spring.console;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReactorNettyCheckTests {

    @Test
    void versionsBefore138AreWarnedOf() {
        assertThat(ReactorNettyCheck.warning("1.3.7")).contains("Reactor Netty 1.3.7").contains("1.3.8 or later");
        assertThat(ReactorNettyCheck.warning("1.2.18")).isNotNull();
        assertThat(ReactorNettyCheck.warning("1.3")).as("1.3.0").isNotNull();
    }

    @Test
    void fixedAndUnknownVersionsAreNot() {
        assertThat(ReactorNettyCheck.warning("1.3.8")).isNull();
        assertThat(ReactorNettyCheck.warning("1.3.10")).isNull();
        assertThat(ReactorNettyCheck.warning("1.3.8-SNAPSHOT")).isNull();
        assertThat(ReactorNettyCheck.warning("1.4.0")).isNull();
        assertThat(ReactorNettyCheck.warning("2.0.0-M1")).isNull();
        assertThat(ReactorNettyCheck.warning(null)).isNull();
        assertThat(ReactorNettyCheck.warning("unknown")).isNull();
    }
}
