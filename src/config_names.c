/*
 * config_names.c — the name and lookup functions of the configuration enums
 * that no module of their own owns (config.h, fleet_cfg.h and the engine
 * options of llm_engine.h), generated from each enum's table in its header
 * (FS_ENUM_FUNCS, common.h).  The scenario loader prints and lists names
 * through them; nothing here holds state.
 */
#include "fleetsim/common.h"
#include "fleetsim/config.h"
#include "fleetsim/fleet_cfg.h"
#include "fleetsim/llm_engine.h"

FS_ENUM_FUNCS(enum fs_arrival_kind, FS_ARRIVAL_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_arrival_kind_name, fs_arrival_kind_from_name, "?")

FS_ENUM_FUNCS(enum fs_length_kind, FS_LENGTH_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_length_kind_name, fs_length_kind_from_name, "?")

FS_ENUM_FUNCS(enum fs_service_kind, FS_SERVICE_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_service_kind_name, fs_service_kind_from_name, "?")

FS_ENUM_FUNCS(enum fs_queue_discipline, FS_DISCIPLINE_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_queue_discipline_name, fs_queue_discipline_from_name, "?")

FS_ENUM_FUNCS(enum fs_delay_kind, FS_DELAY_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_delay_kind_name, fs_delay_kind_from_name, "?")

FS_ENUM_FUNCS(enum fs_billing_granularity, FS_BILLING_GRANULARITY_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_billing_granularity_name, fs_billing_granularity_from_name, "?")

FS_ENUM_FUNCS(enum fs_inflight_action, FS_INFLIGHT_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_inflight_action_name, fs_inflight_action_from_name, "?")

FS_ENUM_FUNCS(enum fs_spot_strategy, FS_SPOT_STRATEGY_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_spot_strategy_name, fs_spot_strategy_from_name, "?")

FS_ENUM_FUNCS(enum fs_router_kind, FS_ROUTER_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_router_kind_name, fs_router_kind_from_name, "?")

FS_ENUM_FUNCS(enum fs_scale_metric, FS_SCALE_METRIC_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_scale_metric_name, fs_scale_metric_from_name, "?")

FS_ENUM_FUNCS(enum fs_select_policy, FS_SELECT_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_select_policy_name, fs_select_policy_from_name, "?")

FS_ENUM_FUNCS(enum fs_llm_policy, FS_LLM_POLICY_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_llm_policy_name, fs_llm_policy_from_name, "?")

FS_ENUM_FUNCS(enum fs_llm_batching, FS_LLM_BATCHING_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_llm_batching_name, fs_llm_batching_from_name, "?")

FS_ENUM_FUNCS(enum fs_llm_scheduler, FS_LLM_SCHEDULER_MAP, FS_ENUM_ID, FS_ENUM_NAME,
              fs_llm_scheduler_name, fs_llm_scheduler_from_name, "?")
