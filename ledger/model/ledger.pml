/*
 * The key ledger's claim / cross / settle / expiry protocol (SPEC.md §9),
 * for spin. README.md beside this file says what is and is not modeled,
 * how to run it, and the figures measured; scripts/spin.sh runs it.
 *
 * One key scope, its record, NWORKERS workers, the store's clock and the
 * network. Each store operation is one d_step, an indivisible step, as each
 * Store.Claim / Cross / Settle / Authorize call (ledger/sqlite,
 * ledger/postgres) is one transaction (SQLite BEGIN IMMEDIATE, PostgreSQL a
 * row lock) running one pure function of package ledger (ledger/machine.go)
 * over the scope's record.
 *
 * Compile-time switches (spin -DNAME ...):
 *   NWORKERS=n     workers (default 3)
 *   MAXTOK=n       tokens the scope may grant (default 5). A claim that would
 *                  grant token MAXTOK+1 stops its worker: a bound of the
 *                  model, not a rule of the ledger.
 *   SCOPE_A        the scope is an authorization's scope A: it starts closed
 *                  (claims refuse) until one authorization opens it.
 *   BROKEN_EXPIRY  the bug: a claim frees a crossing whose lease expired
 *                  (state := free) and grants it, instead of reading it as
 *                  send_status_unknown.
 *   BROKEN_FENCE   the bug: cross does not compare the token.
 *   ONLY_EFFECT    check the effect counter alone (P1's second half): with
 *                  a BROKEN_ switch, the search must then reach the external
 *                  effect performed twice.
 *
 * Checked, as assertions (pan in safety mode):
 *   P1  at most one crossing per scope: every granted cross is under one
 *       token, and the effect counter (a worker acts only after a granted
 *       cross) stays <= 1;
 *   P2  a consumed scope (crossing, sent_verified, send_status_unknown, as
 *       Record.Effective reads it) never becomes free or claimed again;
 *   P3  a request under a stale token (n != the record's token at that
 *       moment) never changes the record as Record.Effective reads it.
 *
 * Replayed (spin -t), each store operation prints one line: who (w1.. the
 * workers, w0 the network's late copy), the call, the answer, the record.
 */

#ifndef NWORKERS
#define NWORKERS 3
#endif
#ifndef MAXTOK
#define MAXTOK 5
#endif

/*
 * States (ledger.State), answers (granted, or the reason of a refusal, as
 * in SPEC §8) and settle outcomes.
 */
mtype = {
	FREE, CLAIMED, CROSSING, SENT_VERIFIED, SEND_STATUS_UNKNOWN,
	GRANTED, KEY_CONSUMED, HELD /* CLAIMED: another task's live claim */,
	FENCED, EXPIRED, NOT_AUTHORIZED, BOUND /* the model's bound MAXTOK */,
	CONFIRMED, UNKNOWN, NOT_CROSSED
};

typedef Record {
	mtype st = FREE; /* state */
	byte tok;    /* last granted token, 0 before any grant */
	byte holder; /* worker 1..NWORKERS, 0 none */
	bool live;   /* the lease is live by the store's clock */
	byte xtok;   /* token under which cross was granted, 0 none */
	bool open    /* claims are allowed: the base scope, or A once authorized */
};

Record r;   /* the scope's record (ledger.Record) */

/* ghost state for the properties; the protocol never reads it */
byte effect;      /* external effects performed in the scope */
byte crossTok;    /* token of the first granted cross, 0 none */
bool wasConsumed; /* the scope has been consumed */

/* Record.Effective(now): an expired crossing reads as send_status_unknown */
#define EFF ((r.st == CROSSING && !r.live) -> SEND_STATUS_UNKNOWN : r.st)
#define CONSUMED(x) ((x) == CROSSING || (x) == SENT_VERIFIED || (x) == SEND_STATUS_UNKNOWN)

#ifdef BROKEN_FENCE
#define STALE(n) false
#else
#define STALE(n) ((n) != r.tok)
#endif

#ifdef ONLY_EFFECT
#define CHECK(e) skip
#else
#define CHECK(e) assert(e)
#endif

/* a replayed trail's line: the call, its answer, the record after it */
#define SHOWREC \
	printf("; record %e token %d holder w%d lease %d\n", EFF, r.tok, r.holder, r.live)
#define SHOW(call) printf(call, me, n, res); SHOWREC

/* P2, after every step that writes the record (the clock's included) */
inline checkConsumed() {
	if
	:: CONSUMED(EFF) -> wasConsumed = true
	:: else -> CHECK(!wasConsumed)   /* P2: consumed scope freed or claimed */
	fi
}

/* P3: the effective record before a request under token n ... */
inline snap() {
	b_st = EFF; b_tok = r.tok; b_holder = r.holder; b_live = r.live; b_xtok = r.xtok
}
/* ... is the record after it, when n was stale at that moment */
inline checkFence(n) {
	if
	:: n != b_tok ->
		CHECK(EFF == b_st && r.tok == b_tok && r.holder == b_holder && /* P3: stale token wrote */
		      r.live == b_live && r.xtok == b_xtok)
	:: else -> skip
	fi;
	b_st = 0; b_tok = 0; b_holder = 0; b_live = false; b_xtok = 0
}

/* P1, on every granted cross */
inline checkCross(n) {
	if
	:: crossTok == 0 -> crossTok = n
	:: else -> CHECK(crossTok == n)   /* P1: a second token crossed */
	fi
}

/* ledger.ApplyClaim (Store.Claim): worker me claims the scope; granted, n
 * is its token */
inline claim(me, n, res) {
	d_step {
		/* as Record.Effective reads it: an expired crossing is never freed */
		if
		:: r.st == CROSSING && !r.live ->
#ifdef BROKEN_EXPIRY
			r.st = FREE; r.holder = 0   /* the bug */
#else
			r.st = SEND_STATUS_UNKNOWN
#endif
		:: else -> skip
		fi;
		if
		:: !r.open -> res = NOT_AUTHORIZED
		:: CONSUMED(r.st) -> res = KEY_CONSUMED
		:: r.st == CLAIMED && r.live && r.holder == me ->
			r.live = true; n = r.tok; res = GRANTED   /* renewed: same token, new lease */
		:: r.st == CLAIMED && r.live && r.holder != me -> res = HELD
		:: (r.st == FREE || (r.st == CLAIMED && !r.live)) && r.tok == MAXTOK -> res = BOUND
		:: (r.st == FREE || (r.st == CLAIMED && !r.live)) && r.tok < MAXTOK ->
			/* free, or claimed and expired before any crossing: the next token */
			r.tok++; r.holder = me; r.live = true; r.st = CLAIMED; n = r.tok; res = GRANTED
		fi;
		printf("w%d claim -> %e", me, res); SHOWREC;
		checkConsumed()
	}
}

/* ledger.ApplyCross (Store.Cross): cross under token n */
inline cross(me, n, res) {
	d_step {
		snap();
		if
		:: STALE(n) -> res = FENCED   /* first, as in Go: no write */
		:: !STALE(n) && r.st == CLAIMED && !r.live -> res = EXPIRED   /* no change */
		:: !STALE(n) && r.st == CLAIMED && r.live ->
			r.st = CROSSING; r.xtok = n; res = GRANTED   /* consumed from here on */
		:: !STALE(n) && r.st == CROSSING && r.live -> res = GRANTED   /* a retry: no change */
		:: !STALE(n) && r.st == CROSSING && !r.live ->
			r.st = SEND_STATUS_UNKNOWN; res = EXPIRED   /* as Effective reads it */
		:: !STALE(n) && (r.st == FREE || r.st == SENT_VERIFIED || r.st == SEND_STATUS_UNKNOWN) ->
			res = KEY_CONSUMED   /* Go: NOT_CLAIMED for free; both refuse */
		fi;
		SHOW("w%d cross(%d) -> %e");
		if :: res == GRANTED -> checkCross(n) :: else -> skip fi;
		checkConsumed();
		checkFence(n)
	}
}

/* ledger.ApplySettle (Store.Settle): settle under token n with outcome o */
inline settle(me, n, o, res) {
	d_step {
		snap();
		if
		:: n != r.tok -> res = FENCED   /* no write */
		:: n == r.tok && o == CONFIRMED ->
			/* evidence: accepted even after the lease expired */
			if
			:: r.st == CLAIMED || r.st == CROSSING ||
			   (r.st == SEND_STATUS_UNKNOWN && r.xtok == n) ->
				r.st = SENT_VERIFIED; res = GRANTED
			:: else -> res = KEY_CONSUMED
			fi
		:: n == r.tok && o == UNKNOWN ->
			if
			:: r.st == CLAIMED || r.st == CROSSING -> r.st = SEND_STATUS_UNKNOWN; res = GRANTED
			:: else -> res = KEY_CONSUMED
			fi
		:: n == r.tok && o == NOT_CROSSED ->
			if
			:: r.st == CLAIMED && r.live ->
				/* released; the token stays, the next claim gets n+1 */
				r.st = FREE; r.holder = 0; r.live = false; res = GRANTED
			:: r.st == CLAIMED && !r.live -> res = EXPIRED
			:: r.st == CROSSING && !r.live -> r.st = SEND_STATUS_UNKNOWN; res = KEY_CONSUMED
			:: else -> res = KEY_CONSUMED   /* after cross: evidence beats a label */
			fi
		fi;
		if
		:: o == CONFIRMED -> SHOW("w%d settle(%d, confirmed) -> %e")
		:: o == UNKNOWN -> SHOW("w%d settle(%d, unknown) -> %e")
		:: o == NOT_CROSSED -> SHOW("w%d settle(%d, not_crossed) -> %e")
		fi;
		checkConsumed();
		checkFence(n)
	}
}

/*
 * A worker (one task) loops claim -> cross -> act -> settle. Between any two
 * of its steps it may pause arbitrarily long: spin explores every
 * interleaving, and the clock may expire its lease meanwhile; it then goes
 * on with the token it holds, stale or not (a late write). At each label it
 * may crash (goto done: it stops forever).
 */
proctype Worker(byte me) {
	byte n;
	mtype res, o;   /* unset: 0, as spin's dead-variable reduction resets them */
	mtype b_st; byte b_tok, b_holder, b_xtok; bool b_live;   /* for snap */
idle:   /* holds nothing */
	n = 0; res = 0; o = 0;
	if
	:: skip
	:: goto done   /* crashes, or gives up */
	fi;
	claim(me, n, res);
	if
	:: res == GRANTED -> goto holding
	:: res == BOUND -> goto done   /* the model's bound */
	:: else -> goto idle           /* refused: may try again later */
	fi;
holding:   /* holds token n; may pause here */
	skip;
	if
	:: cross(me, n, res);
		if
		:: res == GRANTED -> goto crossed
		:: res == GRANTED -> goto holding   /* the answer was lost: may retry */
		:: else -> goto idle
		fi
	:: claim(me, n, res);   /* renews the lease (expired: a new token, or refused) */
		if
		:: res == GRANTED -> goto holding
		:: else -> goto idle
		fi
	:: settle(me, n, NOT_CROSSED, res); goto idle   /* decides not to act */
	:: goto done   /* crash */
	fi;
crossed:   /* a cross under n was granted: the worker may act, once */
	skip;
	if
	:: d_step {   /* the external effect */
		effect++;
		printf("w%d acts under token %d: effect %d\n", me, n, effect);
		assert(effect <= 1)   /* P1: effect performed twice */
	}
	:: skip   /* the act failed before it happened, or was not tried */
	:: goto done   /* crash */
	fi;
	/* may pause here too; then settles (the label may be wrong) */
	if
	:: o = CONFIRMED
	:: o = UNKNOWN
	:: o = NOT_CROSSED
	:: goto done   /* crash */
	fi;
	settle(me, n, o, res);
	goto idle;
done:
	skip
}

/* The store's clock: a live lease may expire at any moment. Leases are
 * measured by the store's clock, never a worker's. */
active proctype Clock() {
end:
	do
	:: d_step {
		r.live -> r.live = false;
		printf("clock: the lease of token %d expires; record %e\n", r.tok, EFF);
		checkConsumed()
	}
	od
}

/* The network: a copy of an earlier request, under any token k older than
 * the record's, is delivered late (sent long ago by a worker that paused,
 * crashed or moved on). */
active proctype Late() {
	byte k;
	mtype res;
	mtype b_st; byte b_tok, b_holder, b_xtok; bool b_live;   /* for snap */
end:
	do
	:: atomic {
		r.tok > 1 -> k = 1;
		do
		:: k + 1 < r.tok -> k++
		:: break
		od;
		if
		:: cross(0, k, res)
		:: settle(0, k, CONFIRMED, res)
		:: settle(0, k, UNKNOWN, res)
		:: settle(0, k, NOT_CROSSED, res)
		fi;
		k = 0; res = 0
	}
	od
}

#ifdef SCOPE_A
/* ledger.ApplyAuthorize (Store.Authorize): a person authorizes one more
 * delivery of the key; its scope A (the scope modeled) may then be claimed,
 * and like any scope crossed once. At any moment, once. */
active proctype Authorizer() {
	d_step {
		r.open = true;
		printf("authorize: scope A opens; record %e token %d\n", EFF, r.tok)
	}
}
#endif

init {
	byte i;
	atomic {
#ifndef SCOPE_A
		r.open = true;   /* the key's base scope is open from the start */
#endif
		i = 1;
		do
		:: i <= NWORKERS -> run Worker(i); i++
		:: else -> break
		od;
		i = 0
	}
}
