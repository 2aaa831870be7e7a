/*
 * qengine.h — the `queue` engine: c identical parallel servers fed from one
 * waiting line (FCFS, or by class priority then FCFS).  It is the validation
 * mode of the simulator: with exponential or fixed service it is an M/M/c or
 * M/D/c queue with known closed forms.  The engine knows request slots and
 * servers only; the world owns the requests, the clock and the event queue.
 * Pure apart from its own state; no randomness (service times are drawn by
 * fs_qengine_draw_service_ns from a stream the caller owns).
 */
#ifndef FLEETSIM_QENGINE_H
#define FLEETSIM_QENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "fleetsim/common.h"
#include "fleetsim/config.h"

struct fs_rng;
struct fs_qengine;

#define FS_QENGINE_NONE UINT32_MAX

struct fs_qengine *fs_qengine_alloc(const struct fs_engine_cfg *cfg);
void fs_qengine_free(struct fs_qengine *e);             /* NULL is fine */

/* A request (slot) arrives.  Returns the server it starts on at once, or -1
 * when all servers are busy and it waits.  `priority` is only used by the
 * priority discipline (lower first); `seq` orders equal priorities (FCFS). */
int fs_qengine_arrive(struct fs_qengine *e, uint32_t slot, int priority,
                      uint64_t seq);

/* Server `server` finished its request.  Returns the slot that starts on it
 * now, or FS_QENGINE_NONE when nothing waits (the server goes idle). */
uint32_t fs_qengine_finish(struct fs_qengine *e, int server);

uint64_t fs_qengine_waiting(const struct fs_qengine *e);
int fs_qengine_busy(const struct fs_qengine *e);
int fs_qengine_servers(const struct fs_qengine *e);

/* One service time (ns, >= 1) from the configured distribution. */
fs_ns fs_qengine_draw_service_ns(const struct fs_service_cfg *cfg, struct fs_rng *r);

#endif
