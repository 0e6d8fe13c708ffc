package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import dev.egressproxies.api.conformance.ConformanceHarness;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of two entries of one backend type on the same infrastructure: each lists
 * only the instances created through it, and neither reports nor deletes the other's instance
 * through an ID that names it, so orphan collection on one entry never destroys the other's.
 */
abstract class EntryScopeConformance extends ConformanceGroup {

    EntryScopeConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void entriesListOnlyTheirOwnInstances() throws Throwable {
        withHook(Capability.BUILDS_ANOTHER_ENTRY, () -> withInstanceOfAnotherEntry((other, otherId) -> {
            String own = session().create("own");

            assertThat(session().listManaged()).extracting(Instance::id)
                    .as("IDs listed by this entry, which include its %s and leave out %s of entry '%s'", own, otherId,
                            other.entryName())
                    .contains(own).doesNotContain(otherId);
            assertThat(other.provider().listManaged(session().deadline())).extracting(Instance::id)
                    .as("IDs listed by entry '%s'", other.entryName())
                    .contains(otherId).doesNotContain(own);
        }), () -> target().harness().anotherEntry());
    }

    @Test
    void anotherEntrysInstanceIsNeitherReportedNorDeletedThroughThisEntry() throws Throwable {
        withHook(Capability.BUILDS_ANOTHER_ENTRY, () -> withInstanceOfAnotherEntry((other, otherId) -> {
            ProviderException getError = ProviderErrors.thrownBy("get of another entry's instance",
                    () -> session().get(otherId));
            ProviderErrors.assertError(getError, ErrorKind.PERMANENT, Operation.GET, entry(), otherId);
            ProviderException deleteError = ProviderErrors.thrownBy("delete of another entry's instance",
                    () -> provider().delete(otherId, session().deadline()));
            ProviderErrors.assertError(deleteError, ErrorKind.PERMANENT, Operation.DELETE, entry(), otherId);

            Instance kept = other.provider().get(otherId, session().deadline());
            assertThat(kept.id()).as("the instance of entry '%s' after the refused delete", other.entryName())
                    .isEqualTo(otherId);
        }), () -> target().harness().anotherEntry());
    }

    /** What a case does with the other entry and the ID of the instance created through it. */
    private interface WithOtherInstance {
        void accept(ConformanceHarness.Entry other, String otherId) throws Throwable;
    }

    /**
     * Builds the other entry, creates an instance through it in the primary placement, runs the
     * case, then deletes that instance through the other entry and closes it.
     */
    private void withInstanceOfAnotherEntry(WithOtherInstance body) throws Throwable {
        ConformanceHarness.Entry other = target().harness().anotherEntry();
        try {
            String otherId = other.provider().create(session().request(names().name("other-entry")),
                    session().deadline());
            try {
                body.accept(other, otherId);
            } finally {
                other.provider().delete(otherId, session().deadline());
            }
        } finally {
            other.provider().close();
        }
    }
}
