package dev.egressproxies.conformance;

import dev.egressproxies.api.conformance.Capability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The provider conformance suite: the cases every backend must pass to honour the provider
 * contract, grouped by operation into nested classes.
 *
 * <p>A backend subclasses it and implements {@link #createTarget()}:
 *
 * <pre>{@code
 * class MyProviderConformanceTest extends ProviderConformanceTest {
 *     @Override
 *     protected ConformanceTarget createTarget() {
 *         Provider provider = ...; // built from configuration, for example through the registry
 *         return ConformanceTarget.builder(provider, "my-entry")
 *                 .capabilities(Capability.REACHES_RUNNING)
 *                 .placement(new Placement("zone-a", "small", "debian-12"))
 *                 .malformedId("not an id")
 *                 .unknownId("zone-a/never-created")
 *                 .stateTimeout(Duration.ofSeconds(60))
 *                 .build();
 *     }
 * }
 * }</pre>
 *
 * <p>A failed case is also printed as {@code Backend > Group > case: reason} on standard error.
 *
 * <p>Each case gets a target of its own, creates instances whose names carry a random token, and
 * deletes all of them afterwards, so runs against a shared real backend do not collide. Cases that
 * depend on a {@link Capability} the target lacks assert the declared lack instead of skipping.
 * @since 1.0.0
 */
@ExtendWith(ConsoleReport.class)
public abstract class ProviderConformanceTest {
    private ConformanceSession session;

    /**
     * Describes the backend under test. Called once before every case; the provider it returns is
     * closed after that case, so build a new one each time.
     *
     * @since 1.0.0
     */
    protected abstract ConformanceTarget createTarget() throws Exception;

    @BeforeEach
    final void openSession() throws Exception {
        session = new ConformanceSession(createTarget());
    }

    @AfterEach
    final void closeSession() {
        if (session != null) {
            session.close();
        }
    }

    final ConformanceSession session() {
        if (session == null) {
            throw new IllegalStateException("no conformance session: createTarget() failed or was not called");
        }
        return session;
    }

    @Nested
    class Create extends CreateConformance {
        Create() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class RejectedRequest extends RejectedRequestConformance {
        RejectedRequest() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class Validate extends ValidateConformance {
        Validate() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class Get extends GetConformance {
        Get() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class States extends StateConformance {
        States() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class Delete extends DeleteConformance {
        Delete() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class ListManaged extends ListManagedConformance {
        ListManaged() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class EntryScope extends EntryScopeConformance {
        EntryScope() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class Deadlines extends DeadlineConformance {
        Deadlines() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class Images extends ImagesConformance {
        Images() {
            super(ProviderConformanceTest.this::session);
        }
    }

    @Nested
    class Errors extends ErrorContextConformance {
        Errors() {
            super(ProviderConformanceTest.this::session);
        }
    }
}
