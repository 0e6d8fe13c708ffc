package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * A failed case of a nested group is reported with the backend's and the group's names, and the
 * backend's cases are counted once its run ends.
 */
class ConsoleReportTest {

    @Test
    void aFailedNestedCaseIsPrintedAsBackendGroupAndCase() {
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        PrintStream standardError = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectClass(SampleBackendSuite.class)).build(), summary);
        } finally {
            System.setErr(standardError);
        }

        assertThat(summary.getSummary().getTotalFailureCount()).isOne();
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("[conformance] FAILED SampleBackendSuite > Deletes > removesTheVolume: the volume is"
                        + " still there second line")
                .contains("[conformance] SampleBackendSuite: 2 cases, 1 passed, 1 failed")
                .doesNotContain("passes");
    }

    /** Stands for a backend's subclass of the suite; run only by the test above (surefire skips nested classes). */
    @ExtendWith(ConsoleReport.class)
    static class SampleBackendSuite {
        @Nested
        class Deletes {
            @Test
            void removesTheVolume() {
                fail("the volume is still there\nsecond line");
            }

            @Test
            void passes() {
            }
        }
    }
}
