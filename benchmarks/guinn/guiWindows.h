#pragma once
// Linux build: no window, the status line goes to CheckerBoard's string.
#include <windows.h>
#include <string>
struct SearchInfo;
struct Move;
struct Board;
void DisplayText(const char* text);
void RunningDisplay(SearchInfo& displayInfo, const Move& bestmove, bool bSearching);
const int NO_SQUARE = 255;
enum class eMoveResult { INVALID_MOVE = 0, VALID_MOVE = 1, DOUBLEJUMP = 2000 };
enum class eMouseButton { LEFT, RIGHT, MIDDLE };
